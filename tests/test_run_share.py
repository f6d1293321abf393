"""The suite's processes share each result (tests/run_share.py): a run computed once, and work units that keep
what shares a process's cache in one worker."""

from __future__ import annotations

import multiprocessing
import os
import time

import run_share


def _ask(key: str, log: str, answers) -> None:
    def compute() -> int:
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(0.5)  # long enough for the other process to be waiting on the lock
        return os.getpid()

    answers.put(run_share.once(key, compute))


def test_two_processes_asking_at_once_get_one_computation(tmp_path, monkeypatch):
    monkeypatch.setenv(run_share.FOLDER_VARIABLE, str(tmp_path))
    log = tmp_path / "computed-by"
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    workers = [context.Process(target=_ask, args=("snippet x.py []", str(log), answers)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    got = [answers.get(timeout=5) for _ in workers]
    computed = log.read_text().split()
    assert len(computed) == 1 and got == [int(computed[0])] * 2
    # and a later ask, from this process, reads it too
    assert run_share.once("snippet x.py []", lambda: -1) == int(computed[0])


def test_a_failed_computation_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setenv(run_share.FOLDER_VARIABLE, str(tmp_path))

    def fail():
        raise RuntimeError("no")

    for _ in range(2):  # the second ask computes again and meets the same error
        try:
            run_share.once("k", fail)
        except RuntimeError as error:
            assert str(error) == "no"
        else:
            raise AssertionError("the error was swallowed")
    assert run_share.once("k", lambda: 3) == 3


def test_work_units_keep_shared_caches_in_one_worker():
    unit = run_share.work_unit
    # a page's blocks in both languages: a block runs once for its copies
    assert unit("docs/en/save-load.md::block 3 [snippets/save_load/x.py]") == unit("docs/zh/save-load.md::block 3") \
        != unit("docs/en/tensors.md::block 1")
    # one page's browser checks: it is loaded once for them all
    pages = "tests/test_browser_pages.py"
    assert unit(f"{pages}::test_page_loads_offline_without_errors[en/devices]") \
        == unit(f"{pages}::test_code_does_not_wrap_on_a_phone[en/devices]") \
        != unit(f"{pages}::test_code_does_not_wrap_on_a_phone[zh/devices]")
    # one language's searches: its home page is loaded once for them
    search = "tests/test_browser_search.py"
    assert unit(f"{search}::test_search_finds_the_page_in_the_query_language[zh:显存]") \
        == unit(f"{search}::test_search_answers_reader_questions[zh]") != unit(f"{search}::test_x[en:gpu]")
    # torchrun jobs case by case; otherwise a file: its module fixtures
    assert unit("tests/test_fsdp.py::test_a[x.py]") != unit("tests/test_fsdp.py::test_a[y.py]")
    fsdp = "tests/test_fsdp.py"
    assert unit(f"{fsdp}::test_b") == unit(f"{fsdp}::test_c") == fsdp
    assert unit("tests/test_snippets.py::test_snippet_runs_as_a_script[x.py]") == "tests/test_snippets.py"
