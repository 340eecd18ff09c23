"""Runs MiniStack for Tasklane's tests and local executor (src/local/emulator.ts starts it).

    python ministack_server.py -H <host> -p <port> [--fire-schedules]

MiniStack reads its settings from the environment; this wrapper sets them from the same
switches moto's wrapper takes, binds to the given loopback interface only, and decides who
fires EventBridge Scheduler schedules:

- by default the local schedule pump does (src/local/schedule-pump.ts), as with moto, so
  MiniStack's own firing loop is not started: both would deliver every firing;
- with --fire-schedules, MiniStack fires them itself (every 10 seconds it delivers what is
  due), and the pump must not run (docs/emulator.md, "What only a firing engine shows").

It makes one correction, the one moto's harness makes too: MiniStack stamps every message
sent through the SQS API with the account id as its SenderId, so the schedule pump's
firings could not be told from a producer's. The wrapper sets SenderId to the access key id
that signed the SendMessage request, the emulator's stand-in for a principal id
(docs/emulator.md, "SenderId"). Messages MiniStack's own Scheduler firing delivers keep the
SenderId it gives them (`AROAEXAMPLE`).

Like the moto harness, it refuses to start when an internal it relies on is missing (another
MiniStack release), naming it, rather than silently running without a correction.
"""

import argparse
import contextvars
import os
import sys

_signer: contextvars.ContextVar = contextvars.ContextVar("tasklane_signer", default=None)


def _require(module, name: str):
    if not hasattr(module, name):
        sys.exit(
            f"ministack_server.py: {module.__name__}.{name} is missing; this MiniStack "
            "release is not the one requirements-ministack.txt pins"
        )
    return getattr(module, name)


def _sign_sender_ids(app, sqs) -> None:
    """SenderId = the signing access key id, for every SendMessage (batch entries too)."""
    set_account = _require(app, "set_request_account_id")
    build_sys = _require(sqs, "_build_send_sys_attrs")

    def remember_signer(access_key_id, *args, **kwargs):
        # app.py calls this once per request with the access key of its signature.
        _signer.set(access_key_id or None)
        return set_account(access_key_id, *args, **kwargs)

    def build_with_signer(now, sys_attrs_input):
        attrs = build_sys(now, sys_attrs_input)
        signer = _signer.get()
        if signer:
            attrs["SenderId"] = signer
        return attrs

    app.set_request_account_id = remember_signer
    sqs._build_send_sys_attrs = build_with_signer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    parser.add_argument("--fire-schedules", action="store_true")
    args = parser.parse_args()

    # `localhost` would let hypercorn bind ::1 only on some machines; the health probe and
    # every client use 127.0.0.1 through `localhost`.
    os.environ["BIND_HOST"] = "127.0.0.1" if args.host == "localhost" else args.host
    os.environ["GATEWAY_PORT"] = str(args.port)
    # One line per request at INFO would fill the log; warnings and errors stay.
    os.environ.setdefault("LOG_LEVEL", "WARNING")

    from ministack import app
    from ministack.services import scheduler, sqs

    _require(scheduler, "start_scheduler")
    if not args.fire_schedules:
        scheduler.start_scheduler = lambda: None
    _sign_sender_ids(app, sqs)

    sys.argv = [sys.argv[0]]
    app.main()


if __name__ == "__main__":
    main()
