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

Further deviations of moto 5.2.1 are corrected by patching its backend objects at start-up
(install_fidelity_fixes below; docs/emulator.md lists what still differs):

- FIFO redelivery order: receive_message releases in-flight messages whose visibility has
  expired one at a time, while it is already judging which groups are blocked, so a group's
  messages come back out of order or not at all. Every expired message of the queue is now
  released before moto looks at the queue, so group blocking is judged on the complete state.
  The whole receive also reads the clock once: moto asks it again for every message, so a
  message whose visibility ended between the release and moto's own pass was released one at
  a time after all, and its group's later message could be handed out first (a key-order
  break our fault scenarios caught). SQS judges a receive at one instant.
- In-flight after a visibility change: a ChangeMessageVisibility on a message whose visibility
  had expired (and that nobody has received since) makes it invisible again, but moto does not
  count it as in flight, so the next messages of its FIFO group are handed out while it is
  hidden: they overtake it. SQS keeps a group locked while any of its messages is invisible.
  A message a visibility change leaves invisible is now counted as in flight.
- Stale receipt handles: moto deletes a message with any receipt handle it ever had. SQS
  needs the one from the most recent receive; with an older one "the request succeeds, but
  the message will not be deleted" (DeleteMessage reference). It now does just that.
- Retention: a message older than the queue's retention period is never delivered again, but
  moto leaves it at the head of the queue, where each receive takes it and stops, so its FIFO
  group stays blocked for good. SQS deletes it; it is now dropped before each receive.
- UpdateItem atomicity: when the 400 KB size check fails part-way through an update
  expression, moto keeps the clauses it has already applied. The item is now snapshotted
  before an UpdateItem and put back if the update raises, as DynamoDB applies nothing.
- Deduplication: moto compares a FIFO message's deduplication id only with the messages still
  in the queue, so a resend after the first copy was deleted is delivered again. SQS drops
  any resend within 5 minutes of the first send; the queue now remembers the ids it was sent.
- Stream records of refused writes: a refused TransactWriteItems puts back a deep copy of
  each table it touched, with a copy of its stream, so the records its earlier items wrote
  stay in the original stream, which every shard iterator already handed out still reads
  and no later write reaches; and a refused UpdateItem of a missing item leaves the INSERT of
  the empty item it created first. DynamoDB writes no stream record for a refused write. The
  original stream is now kept (handed to the restored table) and cut back to where it was.
- SenderId: moto stamps every message with one fixed SenderId. Here a message's SenderId is
  the access key id that signed the SendMessage request (AWS reports the caller's principal
  id; the access key id is the emulator's stable stand-in for it).

The patches rely on moto internals. If one is missing (another moto version), the server
refuses to start and names it, rather than run with the bugs silently back.

Usage: python3 moto_server_serial.py -H localhost -p PORT
"""

import argparse
import copy
import inspect
import io
import json
import re
import sys
import threading
import time
from urllib.parse import parse_qs, urlencode

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple

LOCK = threading.Lock()
POLL_INTERVAL_SECONDS = 0.05
# The caller of the request being handled. Only read and written under LOCK, so one slot is enough.
CURRENT_REQUEST = {"access_key": None}
DEDUPLICATION_WINDOW_MS = 5 * 60 * 1000
CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/")


class MotoInternalsChanged(RuntimeError):
    """The installed moto lacks an internal that a fidelity fix patches."""


def require(owner, name, params=None):
    """Returns owner.name, checking that it exists (and takes `params` first, if given)."""
    value = getattr(owner, name, None)
    if value is None:
        raise MotoInternalsChanged(f"{owner.__name__}.{name} not found")
    if params is not None:
        actual = list(inspect.signature(value).parameters)[1 : 1 + len(params)]
        if actual != params:
            raise MotoInternalsChanged(
                f"{owner.__name__}.{name} takes {actual}, expected {params} first"
            )
    return value


def require_fields(instance, names):
    """Checks that a freshly built moto object has the fields a fix reads or writes."""
    missing = [name for name in names if not hasattr(instance, name)]
    if missing:
        raise MotoInternalsChanged(f"{type(instance).__name__} lacks {', '.join(missing)}")


def install_fidelity_fixes():
    """Patches moto's SQS and DynamoDB backends (see the module docstring)."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.sqs import models as sqs_models
    from moto.sqs.models import Message, Queue, SQSBackend

    probe_queue = Queue("probe.fifo", region="us-east-1", account_id="123456789012", FifoQueue="true")
    require_fields(
        probe_queue,
        ["_messages", "pending_messages", "message_retention_period", "fifo_queue", "deduplication_scope"],
    )
    require_fields(
        Message("probe", "probe"),
        ["visible", "sent_timestamp", "sender_id", "deduplication_id", "group_id", "receipt_handle"],
    )
    fix_fifo_receive(SQSBackend, sqs_models)
    fix_change_visibility(SQSBackend)
    fix_stale_delete(Queue)
    fix_deduplication(Queue)
    fix_sender_id(SQSBackend)
    fix_update_item(DynamoDBBackend, DynamoType)
    fix_refused_transaction_streams(DynamoDBBackend)


def fix_fifo_receive(SQSBackend, sqs_models):
    """Judges FIFO group blocking on the queue's complete state at one instant, and drops
    expired messages."""
    receive_message = require(SQSBackend, "receive_message", ["queue_name"])
    require(SQSBackend, "get_queue")
    clock = require(sqs_models, "unix_time_millis")

    def drop_past_retention(queue):
        retain_from = time.time() * 1000 - int(queue.message_retention_period) * 1000
        kept = [m for m in queue._messages if m.sent_timestamp > retain_from]
        if len(kept) < len(queue._messages):
            for message in set(queue._messages) - set(kept):
                queue.pending_messages.discard(message)
            queue._messages = kept

    def release_expired(queue):
        for message in [m for m in queue.pending_messages if m.visible]:
            queue.pending_messages.discard(message)

    def receive_in_group_order(self, queue_name, *args, **kwargs):
        # Requests run one at a time under LOCK, so swapping the module's clock is safe.
        instant = clock()
        sqs_models.unix_time_millis = lambda: instant
        try:
            queue = self.get_queue(queue_name)
            drop_past_retention(queue)
            release_expired(queue)
            return receive_message(self, queue_name, *args, **kwargs)
        finally:
            sqs_models.unix_time_millis = clock

    SQSBackend.receive_message = receive_in_group_order


def fix_change_visibility(SQSBackend):
    """Counts a message that a visibility change leaves invisible as in flight."""
    change_message_visibility = require(
        SQSBackend, "change_message_visibility", ["queue_name", "receipt_handle", "visibility_timeout"]
    )
    require(SQSBackend, "get_queue")

    def change_and_keep_in_flight(self, queue_name, receipt_handle, visibility_timeout):
        change_message_visibility(self, queue_name, receipt_handle, visibility_timeout)
        queue = self.get_queue(queue_name)
        for message in queue._messages:
            if message.had_receipt_handle(receipt_handle):
                if not message.visible:
                    queue.pending_messages.add(message)
                return

    # change_message_visibility_batch calls self.change_message_visibility, so it is covered.
    SQSBackend.change_message_visibility = change_and_keep_in_flight


def fix_stale_delete(Queue):
    """Ignores a DeleteMessage whose receipt handle is not the message's latest one."""
    delete_message = require(Queue, "delete_message", ["receipt_handle"])

    def delete_with_latest_handle_only(self, receipt_handle):
        for message in self._messages:
            if message.receipt_handle != receipt_handle and message.had_receipt_handle(receipt_handle):
                return None
        return delete_message(self, receipt_handle)

    # SQSBackend.delete_message and delete_message_batch both go through Queue.delete_message.
    Queue.delete_message = delete_with_latest_handle_only


def fix_deduplication(Queue):
    """Remembers each FIFO deduplication id for 5 minutes after its send, deleted or not."""
    add_message = require(Queue, "add_message", ["message"])

    def add_unless_sent_recently(self, message):
        if not self.fifo_queue or not message.deduplication_id:
            return add_message(self, message)
        group = message.group_id if self.deduplication_scope == "messageGroup" else None
        key = (group, message.deduplication_id)
        sent = self.__dict__.setdefault("_sent_deduplication_ids", {})
        now = message.sent_timestamp
        # Insertion order is send order: forget ids from the front once their window is over.
        while sent and next(iter(sent.values())) <= now - DEDUPLICATION_WINDOW_MS:
            del sent[next(iter(sent))]
        if key in sent:
            return None
        sent[key] = now
        return add_message(self, message)

    Queue.add_message = add_unless_sent_recently


def fix_sender_id(SQSBackend):
    """Stamps each sent message with the access key id of the request that sent it."""
    send_message = require(SQSBackend, "send_message", ["queue_name"])

    def send_as_caller(self, queue_name, *args, **kwargs):
        message = send_message(self, queue_name, *args, **kwargs)
        if CURRENT_REQUEST["access_key"]:
            message.sender_id = CURRENT_REQUEST["access_key"]
        return message

    SQSBackend.send_message = send_as_caller


def fix_update_item(DynamoDBBackend, DynamoType):
    """Puts an item back as it was when an UpdateItem on it raises part-way."""
    update_item = require(DynamoDBBackend, "update_item", ["table_name", "key"])
    require(DynamoDBBackend, "get_table")

    def address_of(table, key):
        try:
            hash_value = DynamoType(key[table.hash_key_attr])
            range_value = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
        except (KeyError, TypeError):
            return None
        return hash_value, range_value

    def put_back(table, hash_value, range_value, saved):
        if range_value is None:
            if saved is None:
                table.items.pop(hash_value, None)
            else:
                table.items[hash_value] = saved
            return
        by_range = table.items.get(hash_value, {})
        if saved is not None:
            table.items[hash_value][range_value] = saved
            return
        by_range.pop(range_value, None)
        if not by_range:
            table.items.pop(hash_value, None)

    def atomic_update_item(self, table_name, key, *args, **kwargs):
        table = self.get_table(table_name)
        address = address_of(table, key)
        if address is None:
            # No item to snapshot: moto's own key validation answers this request.
            return update_item(self, table_name, key, *args, **kwargs)
        saved = copy.deepcopy(table.get_item(*address))
        stream = stream_mark(table)
        try:
            return update_item(self, table_name, key, *args, **kwargs)
        except Exception:
            put_back(table, *address, saved)
            stream_rollback(table, stream)
            raise

    DynamoDBBackend.update_item = atomic_update_item


def stream_mark(table):
    """The table's stream shard and how many records it holds, or None without a stream."""
    shard = getattr(table, "stream_shard", None)
    if shard is None:
        return None
    require_fields(shard, ["items", "table"])
    return shard, len(shard.items)


def stream_rollback(table, mark):
    """Makes `mark`'s shard the stream of `table` again, cut back to its length then."""
    if mark is None:
        return
    shard, length = mark
    del shard.items[length:]
    shard.table = table
    table.stream_shard = shard


def fix_refused_transaction_streams(DynamoDBBackend):
    """Keeps the stream that iterators read, without the records of a refused transaction."""
    transact_write_items = require(DynamoDBBackend, "transact_write_items", ["transact_items"])
    require(DynamoDBBackend, "get_table")

    def transact_keeping_streams(self, transact_items, *args, **kwargs):
        marks = {}
        for item in transact_items:
            op = next(iter(item.values()), {})
            name = op.get("TableName") if isinstance(op, dict) else None
            if name in self.tables and name not in marks:
                marks[name] = stream_mark(self.tables[name])
        try:
            return transact_write_items(self, transact_items, *args, **kwargs)
        except Exception:
            for name, mark in marks.items():
                if name in self.tables:
                    stream_rollback(self.tables[name], mark)
            raise

    DynamoDBBackend.transact_write_items = transact_keeping_streams


def access_key_of(environ):
    """The access key id that signed the request (SigV4 header or presigned query), or None."""
    found = CREDENTIAL.search(environ.get("HTTP_AUTHORIZATION", ""))
    if found is None:
        found = re.search(r"X-Amz-Credential=([^/%&]+)", environ.get("QUERY_STRING", ""))
    return found.group(1) if found else None


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
        CURRENT_REQUEST["access_key"] = access_key_of(environ)
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


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("-H", "--host", default="localhost")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args(argv)
    try:
        install_fidelity_fixes()
    except MotoInternalsChanged as err:
        sys.exit(
            f"moto_server_serial: cannot apply its fixes to this moto ({err}); "
            "install the pinned version: pip install -r requirements-emulator.txt"
        )
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(args.host, args.port, serialized(app), threaded=True)


if __name__ == "__main__":
    main(sys.argv[1:])
