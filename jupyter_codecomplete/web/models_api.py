"""REST adapters of the model service (choose, fetch, test and switch models).

- ``GET api/codecomplete/models/choices`` (``?detect=0``: skip looking for local servers): every entry
  by source, the active choice, the serving model, the administrator's policy, downloads;
- ``POST api/codecomplete/models/use`` ``{"id", "custom"?, "role"?}``: validate, probe, switch, save;
  ``role``: ``completion`` (the default) or ``edit`` (the model of edit predictions);
- ``POST api/codecomplete/models/test`` ``{"id", "custom"?}``: the probe report only;
- ``PUT api/codecomplete/models/custom`` ``{"backend", "base_url", "model", "api_key"?}``: save the custom
  endpoint (the key is stored server-side and only ever shown masked);
- ``POST api/codecomplete/models/downloads`` ``{"id"}``: start a download (``202``);
  ``GET .../downloads`` all; ``GET .../downloads/ID`` one (``?stream=1``: server-sent progress events until
  it ends); ``DELETE .../downloads/ID``: cancel.

Errors: ``{"error": {"type", "message"}}`` with the status of :class:`ModelServiceError`.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, cast

from jupyter_server.auth.decorator import authorized
from pydantic import ValidationError
from tornado import web
from tornado.iostream import StreamClosedError

from ..errors import validation_message
from ..models_service import CustomEndpoint, ModelService, ModelServiceError
from .rest import _Base

if TYPE_CHECKING:  # the app's configuration (the app itself imports the handlers)
    from ..config import CodeCompleteConfig

_ID = r"([A-Za-z0-9][A-Za-z0-9._-]{0,99})"


class _ModelsBase(_Base):
    @property
    def service(self) -> ModelService:
        return cast("CodeCompleteConfig", self.extensionapp).model_service

    def fail_with(self, exc: ModelServiceError) -> None:
        self.fail(exc.status, exc.type, exc.message)

    def id_and_custom(self, data: dict[str, Any]) -> tuple[str, CustomEndpoint | None] | None:
        entry_id = data.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            self.fail(400, "bad_request", "'id' (a model id from the list) is required.")
            return None
        custom = None
        if data.get("custom") is not None:
            try:
                custom = CustomEndpoint.model_validate(data["custom"])
            except ValidationError as exc:
                self.fail(400, "bad_request", validation_message(exc))
                return None
        return entry_id, custom


class ChoicesHandler(_ModelsBase):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        detect = self.get_query_argument("detect", "1") not in ("0", "false", "no")
        self.finish(await self.service.list_entries(detect=detect))


class _EntryAction(_ModelsBase):
    """A POST that names a model (``id``, optional ``custom`` endpoint): parse it, act, answer."""

    async def act(self, entry_id: str, custom: CustomEndpoint | None, data: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    @web.authenticated
    @authorized
    async def post(self) -> None:
        data = self.json_object()
        parsed = self.id_and_custom(data) if data is not None else None
        if parsed is None or data is None:
            return
        try:
            result = await self.act(*parsed, data)
        except ModelServiceError as exc:
            self.fail_with(exc)
            return
        self.finish(result)


class UseHandler(_EntryAction):
    async def act(self, entry_id: str, custom: CustomEndpoint | None, data: dict[str, Any]) -> dict[str, Any]:
        role = data.get("role", "completion")
        if not isinstance(role, str):
            raise ModelServiceError("bad_request", "'role' must be 'completion' or 'edit'.")
        result = await self.service.use(entry_id, custom, role=role)
        what = "edit prediction" if role == "edit" else "completion"
        self.log.info("jupyter_codecomplete: switched the %s model to %s", what, entry_id[:200])
        return result


class TestHandler(_EntryAction):
    async def act(self, entry_id: str, custom: CustomEndpoint | None, data: dict[str, Any]) -> dict[str, Any]:
        return {"report": await self.service.test(entry_id, custom)}


class CustomHandler(_ModelsBase):
    @web.authenticated
    @authorized
    async def put(self) -> None:
        data = self.json_object()
        if data is None:
            return
        try:
            custom = CustomEndpoint.model_validate(data)
        except ValidationError as exc:
            self.fail(400, "bad_request", validation_message(exc))
            return
        try:
            self.service.save_custom(custom)
        except ModelServiceError as exc:
            self.fail_with(exc)
            return
        entry = self.service.custom_entry()
        self.finish({"entry": entry.model_dump() if entry else None})


class DownloadsHandler(_ModelsBase):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.finish({"downloads": [j.snapshot() for j in self.service.downloader.jobs.values()]})

    @web.authenticated
    @authorized
    async def post(self) -> None:
        data = self.json_object()
        if data is None:
            return
        entry_id = data.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            self.fail(400, "bad_request", "'id' (a catalogue id) is required.")
            return
        try:
            job = await self.service.pull(entry_id)
        except ModelServiceError as exc:
            self.fail_with(exc)
            return
        self.set_status(202)
        self.finish(job.snapshot())


class DownloadHandler(_ModelsBase):
    @web.authenticated
    @authorized
    async def get(self, entry_id: str) -> None:
        job = self.service.downloader.jobs.get(entry_id)
        if job is None:
            self.fail(404, "not_found", f"No download of {entry_id!r} has been started.")
            return
        if self.get_query_argument("stream", "0") in ("0", "false", "no"):
            self.finish(job.snapshot())
            return
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        last: dict[str, Any] | None = None
        try:
            while True:
                snap = job.snapshot()
                if snap != last:
                    self.write(f"data: {json.dumps(snap)}\n\n")
                    await self.flush()
                    last = snap
                if not job.active:
                    break
                await asyncio.sleep(0.2)
        except StreamClosedError:
            return
        self.finish()

    @web.authenticated
    @authorized
    async def delete(self, entry_id: str) -> None:
        try:
            job = self.service.cancel(entry_id)
        except ModelServiceError as exc:
            self.fail_with(exc)
            return
        await self.service.downloader.wait(job)
        self.finish(job.snapshot())


def handlers() -> list[tuple[str, type[web.RequestHandler]]]:
    return [
        (r"/api/codecomplete/models/choices", ChoicesHandler),
        (r"/api/codecomplete/models/use", UseHandler),
        (r"/api/codecomplete/models/test", TestHandler),
        (r"/api/codecomplete/models/custom", CustomHandler),
        (r"/api/codecomplete/models/downloads", DownloadsHandler),
        (rf"/api/codecomplete/models/downloads/{_ID}", DownloadHandler),
    ]
