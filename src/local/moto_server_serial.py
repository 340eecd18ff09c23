"""moto's server, made to behave like the real services where Tasklane depends on it.

moto 5.2.1 handles requests on parallel threads without per-item locking, so two
conditional writes to one DynamoDB item can both succeed, and two concurrent receives can
take messages of one FIFO group at once. Real DynamoDB and SQS never allow either. This
wrapper runs every request under one lock (moto is bound by Python's GIL anyway, so little
throughput is lost).

Long polls are the exception: holding the lock through a ReceiveMessage wait would stall
everything. The wrapper polls moto without waiting, under the lock, every 50 ms until a
message arrives or the wait ends, which also makes a long poll return as soon as a FIFO
group unlocks, as SQS does (moto's own long poll sleeps through it).

SQS drops a message once it is older than the queue's retention period. moto 5.2.1 keeps
it: a receive marks the expired message received and returns nothing, so it stays in flight
and blocks its FIFO group for good. The wrapper removes expired messages before each
receive, as SQS does (drop_expired_messages).

Usage: python3 moto_server_serial.py -H localhost -p PORT
"""

import argparse
import io
import json
import sys
import threading
import time
from urllib.parse import parse_qs, urlencode

from moto.core.utils import unix_time
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from moto.sqs.models import SQSBackend
from werkzeug.serving import run_simple

LOCK = threading.Lock()
POLL_INTERVAL_SECONDS = 0.05


def call(app, environ, body):
    """Runs one request through moto under the lock and returns (status, headers, body)."""
    env = dict(environ)
    env["wsgi.input"] = io.BytesIO(body)
    env["CONTENT_LENGTH"] = str(len(body))
    captured = {"chunks": []}

    def start_response(status, headers, exc_info=None):
        captured["status"] = status
        captured["headers"] = headers
        return captured["chunks"].append

    with LOCK:
        result = app(env, start_response)
        try:
            chunks = captured["chunks"] + list(result)
        finally:
            if hasattr(result, "close"):
                result.close()
    return captured["status"], captured["headers"], b"".join(chunks)


def receive_wait(environ, body):
    """For a ReceiveMessage, returns (wait seconds, body without wait, is_empty); else None."""
    if environ.get("HTTP_X_AMZ_TARGET") == "AmazonSQS.ReceiveMessage":
        request = json.loads(body or b"{}")
        wait = int(request.pop("WaitTimeSeconds", 0) or 0)
        request["WaitTimeSeconds"] = 0

        def is_empty(out):
            return not json.loads(out or b"{}").get("Messages")

        return wait, json.dumps(request).encode(), is_empty
    if b"Action=ReceiveMessage" in body:
        form = parse_qs(body.decode(), keep_blank_values=True)
        wait = int(form.pop("WaitTimeSeconds", ["0"])[0] or 0)
        form["WaitTimeSeconds"] = ["0"]

        def is_empty(out):
            return b"<Message>" not in out

        return wait, urlencode(form, doseq=True).encode(), is_empty
    return None


def serialized(app):
    def wrapper(environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        receive = receive_wait(environ, body)
        if receive is None:
            status, headers, out = call(app, environ, body)
        else:
            wait, body, is_empty = receive
            deadline = time.monotonic() + wait
            while True:
                status, headers, out = call(app, environ, body)
                if not status.startswith("200") or not is_empty(out) or time.monotonic() >= deadline:
                    break
                time.sleep(POLL_INTERVAL_SECONDS)
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        headers.append(("Content-Length", str(len(out))))
        start_response(status, headers)
        return [out]

    return wrapper


def drop_expired_messages():
    """Makes ReceiveMessage first delete the queue's messages older than its retention."""
    receive = SQSBackend.receive_message

    def receive_message(self, queue_name, *args, **kwargs):
        queue = self.get_queue(queue_name)
        retention = int(getattr(queue, "message_retention_period", 345600))
        now = unix_time()
        for message in list(queue._messages):
            sent = message.sent_timestamp
            if sent is not None and sent / 1000 + retention <= now:
                queue._messages.remove(message)
                queue.pending_messages.discard(message)
        return receive(self, queue_name, *args, **kwargs)

    SQSBackend.receive_message = receive_message


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("-H", "--host", default="localhost")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args(argv)
    drop_expired_messages()
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(args.host, args.port, serialized(app), threaded=True)


if __name__ == "__main__":
    main(sys.argv[1:])
