"""Progress of long lab runs: a callback ``progress(done, total)`` drawn as a tqdm bar on a stream (never stdout's
results: the ``evaluate`` command passes stderr, so ``--json`` output stays parseable)."""
from __future__ import annotations

from tqdm import tqdm

__all__ = ["ProgressBar", "CommandStderr"]


class ProgressBar:
    """A ``progress(done, total)`` callback drawing a bar on ``stream``; use as a context manager (closes the bar).

    ``enabled``: ``True`` always draws, ``False`` never, ``None`` only when ``stream`` is a terminal (tqdm's rule).
    """

    def __init__(self, stream, description: str = "", enabled: bool | None = None, unit: str = "fit"):
        self.stream = stream
        self.description = description
        self.disable = None if enabled is None else not enabled
        self.unit = unit
        self.bar: tqdm | None = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = tqdm(total=total, desc=self.description, file=self.stream, disable=self.disable, unit=self.unit,
                            leave=False, dynamic_ncols=True)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class CommandStderr:
    """A management command's stderr as a plain stream for tqdm (Django's OutputWrapper would end every write with a
    newline)."""

    def __init__(self, wrapper):
        self.wrapper = wrapper

    def write(self, text: str) -> None:
        self.wrapper.write(text, ending="")

    def flush(self) -> None:
        self.wrapper.flush()

    def isatty(self) -> bool:
        return self.wrapper.isatty()
