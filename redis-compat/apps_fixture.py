"""Tasks and jobs of the application tests (test_apps.py), imported both by the test and by the
worker processes it starts: a Celery app with its tasks, and plain functions for RQ jobs.

The Celery app takes its broker and result backend from ORDIS_APPS_REDIS_URL (the worker's
environment); the test process calls configure() once its server runs.
"""

import os

from celery import Celery

app = Celery("apps_fixture")


def configure(url):
    """Points the app's broker and result backend at url (redis://host:port/db)."""
    app.conf.update(broker_url=url, result_backend=url, task_serializer="json",
                    result_serializer="json", accept_content=["json"],
                    # No retries forever when the server is gone: a test fails instead of hanging.
                    broker_connection_max_retries=3,
                    result_backend_transport_options={"retry_policy": {"max_retries": 2}})


if os.environ.get("ORDIS_APPS_REDIS_URL"):
    configure(os.environ["ORDIS_APPS_REDIS_URL"])


@app.task
def add(x, y):
    return x + y


@app.task
def tsum(numbers):
    return sum(numbers)


@app.task
def fail(message):
    raise ValueError(message)


# RQ jobs: RQ imports them by name ("apps_fixture.square") in its work horse.


def square(x):
    return x * x


def concat(*parts, sep="-"):
    return sep.join(str(p) for p in parts)


def divide_by_zero(x):
    return x / 0
