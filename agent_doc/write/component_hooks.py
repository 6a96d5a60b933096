"""Component hooks: ``pre_patch`` and ``post_patch`` shell commands (spec §7.21).

``pre_patch`` transforms the content of a ``patch`` before it is applied (stdin →
stdout); ``post_patch`` is notified after the document was written and runs
detached, so a slow hook never holds up the write. Both get ``COMPONENT`` and
``FILE`` in their environment.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_doc.errors import PatchError

PRE_PATCH_TIMEOUT = 30.0
"""Seconds a ``pre_patch`` hook may run before it is killed."""


def _hook_env(component: str, file: Path | str) -> dict[str, str]:
    env = dict(os.environ)
    env["COMPONENT"] = component
    env["FILE"] = str(file)
    return env


def run_pre_patch(
    cmd: str,
    content: str,
    component: str,
    file: Path | str,
    *,
    timeout: float = PRE_PATCH_TIMEOUT,
) -> str:
    """Run a ``pre_patch`` hook and return its stdout as the new content.

    Raises
    ------
    PatchError
        The hook exits non-zero (message carries its stderr), times out or
        cannot be started.
    """
    import subprocess  # only when a hook is configured

    try:
        result = subprocess.run(
            ["sh", "-c", cmd],
            input=content,
            capture_output=True,
            text=True,
            env=_hook_env(component, file),
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise PatchError(
            f"pre_patch hook for '{component}' timed out after {timeout:g} s: {cmd}"
        ) from exc
    except OSError as exc:
        raise PatchError(f"pre_patch hook for '{component}' failed: {exc}") from exc
    if result.returncode != 0:
        detail = result.stderr.strip() or "no error output"
        raise PatchError(
            f"pre_patch hook for '{component}' failed "
            f"(exit {result.returncode}): {detail}"
        )
    return result.stdout


def run_post_patch(cmd: str, component: str, file: Path | str) -> int:
    """Start a ``post_patch`` hook detached and return its process id.

    The hook gets no stdin and its output is discarded; its exit status is
    never awaited (fire-and-forget).

    Raises
    ------
    PatchError
        The shell cannot be started.
    """
    import subprocess  # only when a hook is configured

    try:
        process = subprocess.Popen(
            ["sh", "-c", cmd],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_hook_env(component, file),
            start_new_session=True,
        )
    except OSError as exc:
        raise PatchError(f"post_patch hook for '{component}' failed: {exc}") from exc
    return process.pid
