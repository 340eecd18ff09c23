"""Bench-only speed-ups for moto 5.2.1's SQS model, loaded into the emulator process.

`npm run bench` puts this folder on PYTHONPATH for the moto_server it starts, and Python
imports `sitecustomize` at start-up. Nothing else loads it: tests and `npm run dev` run
moto unchanged.

moto recomputes every queue attribute, including three message counts that scan the whole
queue, each time it reads one configuration flag: 4 to 6 times per message sent. It also
reads the clock through datetime arithmetic, several times per message per scan. On a FIFO
queue holding a few thousand messages a SendMessageBatch then takes seconds, which would
measure moto rather than Tasklane. The patches below keep moto's behaviour and answers;
they only remove that cost:

1. The clock helpers moto's SQS model uses return the same epoch seconds from time.time().
2. While a message is validated, sent, added, or checked against the retention period on
   receipt, `Queue.attributes` leaves out the three message counts, which those steps never
   read (they read ContentBasedDeduplication or MessageRetentionPeriod).
3. Deleting a message by receipt handle makes one pass over the queue instead of two.
4. The server's request router lists moto's package folder (a directory listing and a stat
   per entry) on every request; the listing is read once and kept.

AWS has none of these costs, so they would distort both sides of every ratio.
"""

import functools
import time


def _patch_sqs():
    from moto.core import utils as core_utils
    from moto.sqs import models

    original_unix_time = core_utils.unix_time

    def unix_time(dt=None):
        return time.time() if dt is None else original_unix_time(dt)

    def unix_time_millis(dt=None):
        return unix_time(dt) * 1000.0

    models.unix_time = unix_time
    models.unix_time_millis = unix_time_millis

    queue_cls = models.Queue
    full_attributes = queue_cls.attributes.fget
    counts = {
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesDelayed",
        "ApproximateNumberOfMessagesNotVisible",
    }
    config_names = {
        name: core_utils.camelcase_to_underscores(name)
        for name in queue_cls.BASE_ATTRIBUTES + queue_cls.FIFO_ATTRIBUTES
        if name not in counts
    }

    def attributes(self):
        if not getattr(self, "_bench_config_only", 0):
            return full_attributes(self)
        result = {}
        for name, field in config_names.items():
            if name in queue_cls.FIFO_ATTRIBUTES and not self.fifo_queue:
                continue
            value = getattr(self, field)
            result[name] = str(value).lower() if isinstance(value, bool) else value
        return result

    queue_cls.attributes = property(attributes)

    def config_only(queue_of):
        def wrap(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                queue = queue_of(*args, **kwargs)
                queue._bench_config_only = getattr(queue, "_bench_config_only", 0) + 1
                try:
                    return fn(*args, **kwargs)
                finally:
                    queue._bench_config_only -= 1

            return wrapper

        return wrap

    backend_cls = models.SQSBackend

    def named_queue(self, queue_name, *args, **kwargs):
        return self.get_queue(queue_name)

    def given_queue(self, queue, *args, **kwargs):
        return queue

    backend_cls.send_message = config_only(named_queue)(backend_cls.send_message)
    backend_cls.send_message_batch = config_only(named_queue)(backend_cls.send_message_batch)
    backend_cls._validate_message = config_only(given_queue)(backend_cls._validate_message)
    backend_cls.is_message_valid_based_on_retention_period = config_only(named_queue)(
        backend_cls.is_message_valid_based_on_retention_period
    )
    queue_cls.add_message = config_only(lambda self, *a, **k: self)(queue_cls.add_message)

    def delete_message(self, receipt_handle):
        if receipt_handle in self.deleted_messages:
            return
        kept = []
        found = False
        for message in self._messages:
            if message.receipt_handle == receipt_handle or receipt_handle in (
                message._old_receipt_handles
            ):
                found = True
                self.pending_messages.discard(message)
                self.deleted_messages.update(message.all_receipt_handles)
                continue
            kept.append(message)
        if not found:
            raise models.ReceiptHandleIsInvalid()
        self._messages = kept

    queue_cls.delete_message = delete_message


def _patch_router():
    from moto import backends

    modules = tuple(backends.list_of_moto_modules())
    backends.list_of_moto_modules = lambda: modules


try:
    _patch_router()
    _patch_sqs()
except ImportError:
    # Not the emulator (moto is not importable here): nothing to patch.
    pass
