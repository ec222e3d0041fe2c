"""Real applications from Debian, unchanged, against the server: a Celery 5.2 worker with the Redis
broker and result backend (kombu's Redis transport: lists, BRPOP, the unacked hash and zset,
fanout over PUBLISH/PSUBSCRIBE; the backend: SETEX, PUBLISH and SUBSCRIBE per task, MULTI/EXEC
pipelines for chords), and an RQ 1.13 worker in burst mode (WATCH/MULTI, registries in sorted sets,
results in streams). The tasks and jobs are in apps_fixture.py; workers are separate processes,
started and always killed by the test. redis-py's PubSub and Lock are covered by test_pubsub.py and
test_scripting_clients.py.

Every test checks the work was done: results computed by the worker, read back through the app's
own API and, where the app's format is stable, from the keys it wrote.
"""

import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
import warnings

from harness import IS_ORDIS, ServerTestCase, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = sys.executable
RQ = shutil.which("rq", path="/usr/bin:" + os.environ.get("PATH", "")) or "/usr/bin/rq"

WORK_TIMEOUT_S = 30.0  # the whole work of one test; each takes a few seconds on Redis


def ordis_bug(test):
    """An application ordis cannot serve yet: an expected failure against ordis only."""
    return unittest.expectedFailure(test) if IS_ORDIS else test


class AppTestCase(ServerTestCase):
    """Runs application processes beside the server, each with its log in a scratch directory."""

    def setUp(self):
        super().setUp()
        # Debian's kombu and celery 5.2 use an entry-points API Python 3.11 deprecates.
        self.enterContext(warnings.catch_warnings())
        warnings.filterwarnings("ignore", "SelectableGroups dict", DeprecationWarning)
        self.url = "redis://127.0.0.1:%d/0" % self.port
        # kombu retries a publish forever while the server is down: a server that dies must fail
        # the test, not hang it. Checked every half second, in the main thread (the handler's
        # exception interrupts whatever the test waits in).
        previous = signal.signal(signal.SIGALRM, self.check_server_alive)
        signal.setitimer(signal.ITIMER_REAL, 0.5, 0.5)
        self.addCleanup(signal.signal, signal.SIGALRM, previous)
        self.addCleanup(signal.setitimer, signal.ITIMER_REAL, 0)
        self.work_dir = tempfile.mkdtemp(prefix="ordis-apps-")
        self.addCleanup(shutil.rmtree, self.work_dir, ignore_errors=True)

    def check_server_alive(self, signum=None, frame=None):
        if not self.server.alive():
            raise AssertionError("the server died; log tail:\n" + self.server.log_tail())

    def app_env(self):
        env = dict(os.environ)
        env.update(PYTHONPATH=HERE, PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1",
                   ORDIS_APPS_REDIS_URL=self.url)
        return env

    def start_process(self, name, args):
        """Starts args in the scratch directory, output to <name>.log; killed at cleanup."""
        log_path = os.path.join(self.work_dir, name + ".log")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(args, cwd=self.work_dir, env=self.app_env(), stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        self.addCleanup(stop_process, proc)
        return proc, log_path

    def run_process(self, name, args):
        """Runs args to completion (within WORK_TIMEOUT_S); returns (exit status, output)."""
        try:
            r = subprocess.run(args, cwd=self.work_dir, env=self.app_env(), capture_output=True,
                               timeout=WORK_TIMEOUT_S)
        except subprocess.TimeoutExpired as e:
            self.fail("%s did not finish within %.0fs; output:\n%s" %
                      (name, WORK_TIMEOUT_S, tail((e.stdout or b"") + (e.stderr or b""))))
        return r.returncode, tail(r.stdout + r.stderr)


def stop_process(proc):
    """SIGTERM to the process group (a worker and its children), SIGKILL after 10 s."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        proc.wait()


def tail(data, n=6000):
    if isinstance(data, str):
        return data[-n:]
    return data[-n:].decode("utf-8", "replace")


def file_tail(path):
    with open(path, "rb") as f:
        return tail(f.read())


# -------------------------------------------------------------------------------------------------
# Celery
# -------------------------------------------------------------------------------------------------


class CeleryTest(AppTestCase):
    """One `celery worker --pool=solo` per test; the test process publishes and waits for results
    through the same app (apps_fixture.app) pointed at the server."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "SelectableGroups dict", DeprecationWarning)
            import apps_fixture
            from celery.exceptions import TimeoutError as ResultTimeout
        cls.fx = apps_fixture
        cls.ResultTimeout = ResultTimeout
        cls.fx.configure("redis://127.0.0.1:%d/0" % cls.port)

    @classmethod
    def tearDownClass(cls):
        gc.collect()  # results unsubscribe when collected: while the server still runs
        cls.fx.app.close()  # the producer pool and the result backend's connections
        super().tearDownClass()

    def start_worker(self):
        """Starts the worker and returns once it consumes. Not in setUp: on ordis, where the
        worker cannot run, the test is an expected failure; a failing setUp would be an error."""
        self.worker, self.log = self.start_process(
            "celery", [PYTHON, "-m", "celery", "-A", "apps_fixture", "worker", "--pool=solo",
                       "--loglevel=INFO", "--hostname=ordis-compat@%h"])
        # The worker answers a broadcast ping (fanout over PUBLISH, reply through its reply
        # queue) once it consumes: from then on tasks sent are picked up.
        pong = wait_until(self.ping_worker, WORK_TIMEOUT_S, interval=0.1)
        self.assertTrue(pong, "the worker never answered ping; log:\n" + file_tail(self.log))

    def ping_worker(self):
        self.check_server_alive()
        if self.worker.poll() is not None:
            self.fail("the worker exited (%s); log:\n%s" % (self.worker.returncode,
                                                          file_tail(self.log)))
        return self.fx.app.control.ping(timeout=0.5, limit=1)

    def wait_result(self, result, **kw):
        try:
            return result.get(timeout=WORK_TIMEOUT_S, **kw)
        except self.ResultTimeout:
            self.fail("no result within %.0fs; worker log:\n%s" % (WORK_TIMEOUT_S,
                                                                  file_tail(self.log)))

    def stored_meta(self, task_id):
        """The result the backend stored for a task, read straight from the server."""
        raw = self.r.get("celery-task-meta-" + task_id)
        self.assertIsNotNone(raw, "no stored result for task %s" % task_id)
        return json.loads(raw)

    def test_group_and_chain(self):
        self.start_worker()
        from celery import group
        fx = self.fx
        res = group(fx.add.s(i, i) for i in range(10))()
        self.assertEqual(self.wait_result(res), [2 * i for i in range(10)])
        self.assertTrue(res.successful())
        self.assertEqual(len(res.results), 10)
        for i, child in enumerate(res.results):
            meta = self.stored_meta(child.id)
            self.assertEqual((meta["status"], meta["result"]), ("SUCCESS", 2 * i))
            self.assertGreater(self.r.ttl("celery-task-meta-" + child.id), 3600)  # result_expires
        chain = (fx.add.s(1, 2) | fx.add.s(3) | fx.add.s(4))()
        self.assertEqual(self.wait_result(chain), 10)
        self.assertEqual(self.wait_result(chain.parent), 6)
        self.assertEqual(self.stored_meta(chain.parent.parent.id)["result"], 3)
        # The queue is drained, and every delivery acknowledged (the last maybe just after its
        # result was sent).
        self.assertEqual(self.r.llen("celery"), 0)
        self.assertTrue(wait_until(lambda: self.r.hlen("unacked") == 0, 5.0))

    def test_chord(self):
        self.start_worker()
        from celery import chord
        fx = self.fx
        res = chord(fx.add.s(i, i) for i in range(10))(fx.tsum.s())
        self.assertEqual(self.wait_result(res), 90)
        self.assertEqual(self.stored_meta(res.id)["status"], "SUCCESS")
        # The header's results, then the callback's.
        self.assertEqual([self.stored_meta(c.id)["result"] for c in res.parent.results],
                         [2 * i for i in range(10)])
        # The chord's counters (results zset, size) are gone once its callback was sent.
        counters = ["celery-taskset-meta-%s.%s" % (res.parent.id, k) for k in "jst"]
        self.assertTrue(wait_until(lambda: self.r.exists(*counters) == 0, 5.0))
        # A chord whose header is a chord's result: nested, and with a failing member.
        res = chord([fx.add.s(1, 1), chord([fx.add.s(2, 2), fx.add.s(3, 3)], fx.tsum.s())],
                    fx.tsum.s())()
        self.assertEqual(self.wait_result(res), 12)
        bad = chord([fx.add.s(1, 1), fx.fail.s("in a chord")], fx.tsum.s())()
        with self.assertRaises(ValueError) as e:
            self.wait_result(bad)  # raises the header's error, maybe before the callback failed
        self.assertEqual(str(e.exception), "in a chord")
        # The worker fails the callback once the whole header is done.
        self.assertTrue(wait_until(lambda: self.r.exists("celery-task-meta-" + bad.id),
                                   WORK_TIMEOUT_S), file_tail(self.log))
        meta = self.stored_meta(bad.id)
        self.assertEqual((meta["status"], meta["result"]["exc_type"]), ("FAILURE", "ChordError"))

    def test_failure_and_countdown(self):
        self.start_worker()
        fx = self.fx
        res = fx.fail.delay("boom")
        with self.assertRaises(ValueError) as e:
            self.wait_result(res)
        self.assertEqual(str(e.exception), "boom")
        self.assertEqual(res.state, "FAILURE")
        meta = self.stored_meta(res.id)
        self.assertEqual((meta["status"], meta["result"]["exc_type"]), ("FAILURE", "ValueError"))
        self.assertIsInstance(self.wait_result(fx.fail.delay("quiet"), propagate=False), ValueError)
        # A task with a countdown: the worker holds it unacknowledged (in the unacked hash and
        # its index zset) until it is due, then runs it.
        res = fx.add.apply_async((20, 22), countdown=2)
        self.assertTrue(wait_until(lambda: self.r.hlen("unacked") == 1, WORK_TIMEOUT_S),
                        "the worker never reserved the task; log:\n" + file_tail(self.log))
        self.assertEqual(self.r.zcard("unacked_index"), 1)
        self.assertEqual(self.wait_result(res), 42)
        self.assertTrue(wait_until(lambda: self.r.hlen("unacked") == 0, 5.0))
        self.assertEqual(self.r.zcard("unacked_index"), 0)


# -------------------------------------------------------------------------------------------------
# RQ
# -------------------------------------------------------------------------------------------------


class RqTest(AppTestCase):
    """Jobs enqueued through RQ's API, then `rq worker --burst`, which runs them all and exits."""

    def setUp(self):
        super().setUp()
        import apps_fixture
        from rq import Queue
        self.fx = apps_fixture
        self.q = Queue("default", connection=self.r)
        self.high = Queue("high", connection=self.r)

    def run_burst_worker(self, *queues):
        status, out = self.run_process("rq worker", [RQ, "worker", "--burst", "--url", self.url,
                                                     "--name", "ordis-compat"] + list(queues))
        self.assertEqual(status, 0, "rq worker --burst failed:\n" + out)
        return out

    @ordis_bug  # no streams: RQ 1.13 keeps results with XADD and reads them with XREVRANGE
    def test_jobs_run_and_results_are_kept(self):
        from rq import Worker
        from rq.job import Job, JobStatus
        fx = self.fx
        squares = [self.q.enqueue(fx.square, i) for i in range(6)]
        joined = self.q.enqueue(fx.concat, "a", "b", 3, sep="+", result_ttl=600)
        first = self.high.enqueue(fx.square, 12)
        self.assertEqual(self.q.count, 7)
        self.assertEqual(squares[0].get_status(), JobStatus.QUEUED)
        self.assertEqual(self.q.job_ids, [j.id for j in squares] + [joined.id])
        out = self.run_burst_worker("high", "default")
        self.assertIn("Worker rq:worker:ordis-compat: done, quitting", out)
        for i, job in enumerate(squares):
            job.refresh()
            self.assertEqual(job.get_status(), JobStatus.FINISHED, out)
            self.assertEqual(job.return_value(), i * i)
            self.assertEqual(Job.fetch(job.id, connection=self.r).return_value(), i * i)
        self.assertEqual(Job.fetch(joined.id, connection=self.r).return_value(), "a+b+3")
        self.assertLessEqual(self.r.ttl(joined.key), 600)
        self.assertGreater(self.r.ttl(joined.key), 500)
        first.refresh()
        self.assertEqual(first.return_value(), 144)
        # The higher-priority queue ran first.
        self.assertLessEqual(first.ended_at, squares[0].started_at)
        self.assertEqual((self.q.count, self.high.count), (0, 0))
        self.assertEqual(set(self.q.finished_job_registry.get_job_ids()),
                         {j.id for j in squares + [joined]})
        self.assertEqual(self.q.started_job_registry.count, 0)
        self.assertEqual(Worker.all(connection=self.r), [])  # the burst worker unregistered

    @ordis_bug  # no streams: RQ 1.13 keeps results with XADD and reads them with XREVRANGE
    def test_failed_job_and_dependencies(self):
        from rq.job import JobStatus
        fx = self.fx
        bad = self.q.enqueue(fx.divide_by_zero, 7)
        parent = self.q.enqueue(fx.square, 5)
        child = self.q.enqueue(fx.concat, "child", depends_on=parent)
        orphan = self.q.enqueue(fx.concat, "never", depends_on=bad)
        self.assertEqual(child.get_status(), JobStatus.DEFERRED)
        self.assertEqual(self.q.deferred_job_registry.count, 2)
        self.assertEqual(self.q.count, 2)
        self.run_burst_worker("default")
        bad.refresh()
        self.assertEqual(bad.get_status(), JobStatus.FAILED)
        self.assertTrue(bad.is_failed)
        self.assertIn(bad.id, self.q.failed_job_registry)
        self.assertEqual(self.q.failed_job_registry.get_job_ids(), [bad.id])
        self.assertIn("ZeroDivisionError", bad.latest_result().exc_string)
        # The dependent of the finished job ran; the dependent of the failed one did not.
        child.refresh()
        self.assertEqual((child.get_status(), child.return_value()), (JobStatus.FINISHED, "child"))
        orphan.refresh()
        self.assertEqual(orphan.get_status(), JobStatus.DEFERRED)
        self.assertEqual(self.q.deferred_job_registry.get_job_ids(), [orphan.id])
        # Requeued from the failed registry, it fails again in a second burst.
        self.q.failed_job_registry.requeue(bad.id)
        self.assertEqual(self.q.job_ids, [bad.id])
        self.run_burst_worker("default")
        bad.refresh()
        self.assertEqual(bad.get_status(), JobStatus.FAILED)
        self.assertEqual(len(bad.results()), 2)


if __name__ == "__main__":
    unittest.main()
