# SPDX-License-Identifier: MIT
# Type stubs of gip.op: one function per registered operation, generated when gip is imported.
from typing import Any, Callable

def __getattr__(name: str) -> Callable[..., Any]: ...
