"""Test clients of the protocol: every message the server sends is checked against the shipped
JSON Schema (its envelope, and the result of the method its id answers, or the notification's
params)."""
from __future__ import annotations

import asyncio
import json
from collections import Counter

import jsonschema
from referencing import Registry, Resource

from metro_ai.protocol import Session, schema

SCHEMA = schema()
_REGISTRY = Registry().with_resource(SCHEMA["$id"], Resource.from_contents(SCHEMA))
jsonschema.Draft202012Validator.check_schema(SCHEMA)


def _validator(pointer):
    return jsonschema.Draft202012Validator({"$ref": f"{SCHEMA['$id']}#{pointer}"}, registry=_REGISTRY)


ENVELOPE = _validator("/$defs/server_message")
RESULTS = {m: _validator(f"/methods/{m}/result") for m in SCHEMA["methods"]}
PARAMS = {m: _validator(f"/methods/{m}/params") for m in SCHEMA["methods"]}
NOTIFICATIONS = {n: _validator(f"/notifications/{n}/params") for n in SCHEMA["notifications"]}

#: Every server message checked by the tests, counted by kind (the report's figures).
CHECKED: Counter = Counter()


def check_server_message(message, methods_by_id):
    """Validate one message from the server; `methods_by_id` maps request ids to method names."""
    ENVELOPE.validate(message)
    if "method" in message:
        NOTIFICATIONS[message["method"]].validate(message["params"])
        CHECKED["notification"] += 1
    elif "result" in message:
        method = methods_by_id.get(message["id"])
        assert method is not None, f"an answer to an id never sent: {message}"
        RESULTS[method].validate(message["result"])
        CHECKED["result"] += 1
    else:
        CHECKED[f"error {message['error']['code']}"] += 1


class Client:
    """An in-process client of one `Session`: ``await c.call(method, **params)`` returns the
    whole answer (result or error); notifications collect in ``notes``."""

    def __init__(self, **session_options):
        self.session = Session(self._receive, **session_options)
        self.answers: dict = {}
        self.notes: list = []
        self.unmatched: list = []             # answers with id null (parse errors and the like)
        self.methods: dict = {}
        self._next = 0
        self._waiters: dict = {}

    async def _receive(self, text):
        try:
            assert "\n" not in text
            message = json.loads(text)
            check_server_message(message, self.methods)
        except Exception as exc:      # a message off the schema fails the calls waiting, not hangs them
            for waiter in self._waiters.values():
                if not waiter.done():
                    waiter.set_exception(exc)
            self._waiters.clear()
            raise
        if "method" in message:
            self.notes.append(message)
            return
        i = message["id"]
        if i is None:
            self.unmatched.append(message)
        self.answers[i] = message
        waiter = self._waiters.pop(i, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(message)

    def send(self, method, **params):
        """Send a request; returns its id (await ``answer(id)``)."""
        self._next += 1
        i = self._next
        self.methods[i] = method
        self._waiters[i] = asyncio.get_running_loop().create_future()
        return i, self.session.handle_message({"jsonrpc": "2.0", "id": i, "method": method, "params": params})

    async def answer(self, i):
        if i in self.answers:
            return self.answers[i]
        return await self._waiters[i]

    async def call(self, method, **params):
        i, sending = self.send(method, **params)
        await sending
        return await self.answer(i)

    async def result(self, method, **params):
        """The result of a call that must succeed."""
        answer = await self.call(method, **params)
        assert "result" in answer, answer
        return answer["result"]

    async def error(self, method, code, **params):
        """The error of a call that must fail with `code`."""
        answer = await self.call(method, **params)
        assert "error" in answer, answer
        assert answer["error"]["code"] == code, answer
        return answer["error"]["message"]

    async def raw(self, text):
        """Send raw text; the answers with id null it caused."""
        before = len(self.unmatched)
        await self.session.handle_text(text)
        return self.unmatched[before:]


def run(coro):
    return asyncio.run(coro)
