"""A scheduler's SIGTERM, said to the server before the rank ends: the goodbye first (exit code 143),
then the signal as it would have ended the program. Only where nothing else handles SIGTERM yet;
the program may set its own, which then has it alone.

Python runs a signal's handler on the main thread between bytecodes, and a rank blocked in a
collective is in C until the backend's timeout (gloo's is 30 minutes): its handler would wait that
long, and the rank with it. So the handler is also woken at once through the signal's wakeup fd, on
a thread of its own, and ends the process by the signal itself, set back to its default in C (the
main thread alone may call signal.signal)."""

from __future__ import annotations

import ctypes
import os
import signal
import threading
from collections.abc import Callable

Goodbye = Callable[[int, str], None]  # the reporter's close(exit_code, error)


def goodbye_on_sigterm(goodbye: Goodbye) -> None:
    """Say goodbye on SIGTERM, then end by it; from the main thread, where SIGTERM is unhandled."""
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return
    once = threading.Lock()

    def end() -> None:
        if not once.acquire(blocking=False):
            return  # the other way in is saying it
        goodbye(128 + signal.SIGTERM, "SIGTERM")
        ctypes.CDLL(None).signal(signal.SIGTERM, ctypes.c_void_p(0))  # SIG_DFL
        os.kill(os.getpid(), signal.SIGTERM)

    def on_term(signum, frame) -> None:
        end()

    signal.signal(signal.SIGTERM, on_term)
    woken, wake = os.pipe()
    os.set_blocking(wake, False)
    held = signal.set_wakeup_fd(wake, warn_on_full_buffer=False)
    if held != -1:  # an event loop of the program's holds it: given back, and the handler alone wakes
        signal.set_wakeup_fd(held)
        os.close(woken)
        os.close(wake)
        return
    waker = threading.Thread(target=_woken, args=(woken, on_term, end), daemon=True)
    waker.name = "ringside-watch-term"
    waker.start()


def _woken(woken: int, on_term: Callable, end: Callable[[], None]) -> None:
    """Each signal's number, as it comes: SIGTERM ends the rank while the handler is still ours."""
    while True:
        numbers = os.read(woken, 64)
        if signal.SIGTERM in numbers and signal.getsignal(signal.SIGTERM) is on_term:
            end()
