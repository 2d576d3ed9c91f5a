"""A workspace's files over REST, for the chat page's files panel and message attachments.

`/api/workspaces/<id>/files[/<path>]`:
- GET a folder: `{path, access, writable, entries: [{name, path, type: file|dir, size, modified}]}`.
- GET a file: the file. Text inline as text/plain (HTML included: never as HTML), raster images
  inline, anything else or any file with `?download=1` as an attachment. Every file answer
  carries nosniff and a Content-Security-Policy under which nothing runs.
- POST multipart/form-data: the files (one or more, any field name) into the folder in the path,
  made when missing → 201 `{entries}`. POST JSON `{"mkdir": "name"}`: a folder inside it → 201
  `{entries}`.
- DELETE: a file, or a folder (with what it holds only with `?recursive=1`, else 409) → 204.

Refusals: 404 for a workspace you may not use and for a path outside it (`..`, absolute, a
symlink leading out), 403 for a change with read access or, unless you own the workspace, under
`.metnos/`, 413 for a file over METNOS_UPLOAD_MAX_BYTES, 507 with the usage when the workspace
would pass METNOS_WORKSPACE_QUOTA_BYTES. The rules live in agents/services/files.py."""

from __future__ import annotations

import functools
from datetime import datetime

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import FileResponse, Http404, JsonResponse
from ninja import Router, Schema, Status
from pydantic import ValidationError

from agents.models import Workspace
from agents.selectors import workspace_usable_by
from agents.services import InvalidInput, files

router = Router(tags=["files"])

STATUS = {files.NotFound: 404, files.ReadOnly: 403, files.NotEmpty: 409, files.TooLarge: 413, files.OverQuota: 507}
# A file opened in its own tab is a document of this origin: nothing in it may run or load.
FILE_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox"


class UploadCap(FileUploadHandler):
    """The first of FILE_UPLOAD_HANDLERS: stops a file as soon as it passes
    METNOS_UPLOAD_MAX_BYTES. The rest of the body is read and dropped, no file is kept, and the
    request is marked so the upload answers 413 (any other form simply lacks the file)."""

    def new_file(self, *args, **kwargs) -> None:
        super().new_file(*args, **kwargs)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        if self.received > settings.METNOS_UPLOAD_MAX_BYTES:
            self.request.upload_refused = self.file_name
            raise StopUpload(connection_reset=False)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handler builds the file


class EntryOut(Schema):
    name: str
    path: str
    type: str
    size: int | None
    modified: datetime


class ListingOut(Schema):
    path: str
    access: str
    writable: bool
    entries: list[EntryOut]


class CreatedOut(Schema):
    entries: list[EntryOut]


class FolderIn(Schema):
    mkdir: str


def answers_refusals(view):
    """The files service's refusals as JSON answers with their status (and the 507's usage)."""

    @functools.wraps(view)
    def answer(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except files.FileRefused as exc:
            return JsonResponse({"detail": str(exc), **exc.extra}, status=STATUS[type(exc)])

    return answer


def _usable(request, workspace_id: str) -> tuple[Workspace, str]:
    usable = workspace_usable_by(workspace_id=workspace_id, user=request.user)
    if usable is None:
        raise Http404
    return usable


def _get(request, workspace_id: str, path: str, download: bool):
    workspace, access = _usable(request, workspace_id)
    if files.is_folder(workspace=workspace, path=path):
        rel, entries = files.files_list(workspace=workspace, path=path)
        return {"path": rel, "access": access, "writable": files.can_write(access, rel), "entries": entries}
    served = files.file_serve(workspace=workspace, path=path, download=download)
    response = FileResponse(
        served.path.open("rb"), as_attachment=not served.inline, filename=served.name, content_type=served.content_type
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = FILE_CSP
    response["Cache-Control"] = "private, no-cache"
    return response


def _post(request, workspace_id: str, path: str):
    workspace, access = _usable(request, workspace_id)
    if request.content_type == "application/json":
        try:
            name = FolderIn.model_validate_json(request.body).mkdir
        except ValidationError:
            raise InvalidInput('send {"mkdir": "name"} to make a folder') from None
        entry = files.folder_make(workspace=workspace, access=access, folder=path, name=name)
        return Status(201, {"entries": [entry]})
    if request.content_type != "multipart/form-data":
        raise InvalidInput('send files as multipart/form-data, or JSON {"mkdir": "name"}')
    uploads = [upload for field in request.FILES for upload in request.FILES.getlist(field)]  # parses the body
    refused = getattr(request, "upload_refused", None)
    if refused:
        limit = settings.METNOS_UPLOAD_MAX_BYTES
        raise files.TooLarge(f"{refused} is larger than {limit} bytes, the most a file may be")
    entries = files.files_upload(workspace=workspace, access=access, folder=path, uploads=uploads)
    return Status(201, {"entries": entries})


@router.get("/workspaces/{workspace_id}/files", response=ListingOut)
@answers_refusals
def list_workspace_root(request, workspace_id: str):
    """The workspace's top folder."""
    return _get(request, workspace_id, "", False)


@router.get("/workspaces/{workspace_id}/files/{path:path}", response=ListingOut)
@answers_refusals
def get_workspace_file(request, workspace_id: str, path: str, download: bool = False):
    """A folder's listing, or a file (inline when safe; `?download=1` as an attachment)."""
    return _get(request, workspace_id, path, download)


@router.post("/workspaces/{workspace_id}/files", response={201: CreatedOut})
@answers_refusals
def upload_to_workspace_root(request, workspace_id: str):
    """Upload files (multipart/form-data) into the top folder, or make a folder (JSON `{"mkdir"}`)."""
    return _post(request, workspace_id, "")


@router.post("/workspaces/{workspace_id}/files/{path:path}", response={201: CreatedOut})
@answers_refusals
def upload_to_workspace_folder(request, workspace_id: str, path: str):
    """Upload files (multipart/form-data) into this folder, made when missing, or make a folder
    inside it (JSON `{"mkdir": "name"}`)."""
    return _post(request, workspace_id, path)


@router.delete("/workspaces/{workspace_id}/files/{path:path}", response={204: None})
@answers_refusals
def delete_workspace_file(request, workspace_id: str, path: str, recursive: bool = False):
    """Delete a file, or a folder: one that is not empty only with `?recursive=1`."""
    workspace, access = _usable(request, workspace_id)
    files.file_delete(workspace=workspace, access=access, path=path, recursive=recursive)
    return Status(204, None)
