"""What a pickle of plain data would cost to build, counted from its opcodes before anything is built.

Every opcode costs one, and so does every object it builds; a string one more for each
CHARS_PER_UNIT characters; an object used again (a memo get, a DUP) its whole size, with all it
holds, each time: whoever reads the data walks it that often, so a few kilobytes that refer to one
dict a million times cost what they expand to. `cost` stops at the budget.

The opcodes are read here rather than by pickletools.genops, which decodes every argument (a
string of megabytes into a str, a text LONG into an int): this scan only measures them, at about
1 us an opcode, so the budget bounds its time too. Any opcode not in SHAPES (one that builds an
object or calls a function) ends the scan, for unpickle.py to name it."""

from __future__ import annotations

# what an opcode does to the unpickler's stack
LEAF, GET, PUT, MEMOIZE, MARK, EMPTY, ADD_MARKED, ADD, BUILD_MARKED, BUILD = range(10)
POP, POP_MARK, DUP, NOP, STOP, BOX_MARKED = range(10, 16)
# opcode -> (what it does, its argument): ("n", the argument, no bytes), or bytes read as
# ("fixed", n bytes, an index?), ("counted", n bytes of length, False), ("line", 0, an index?); a
# leaf's argument is its size, a string's by its length
SHAPES: dict[int, tuple[int, tuple]] = {
    **{ord(c): (LEAF, ("n", 1)) for c in "N\x88\x89"},  # NONE NEWTRUE NEWFALSE
    **{ord(c): (LEAF, ("line", 0, False)) for c in "ILFSV"},  # INT LONG FLOAT STRING UNICODE
    ord("J"): (LEAF, ("fixed", 4, False)),  # BININT
    ord("K"): (LEAF, ("fixed", 1, False)),  # BININT1
    ord("M"): (LEAF, ("fixed", 2, False)),  # BININT2
    ord("G"): (LEAF, ("fixed", 8, False)),  # BINFLOAT
    0x8A: (LEAF, ("counted", 1, False)),  # LONG1
    0x8B: (LEAF, ("counted", 4, False)),  # LONG4
    ord("T"): (LEAF, ("counted", 4, False)),  # BINSTRING
    ord("U"): (LEAF, ("counted", 1, False)),  # SHORT_BINSTRING
    0x8C: (LEAF, ("counted", 1, False)),  # SHORT_BINUNICODE
    ord("X"): (LEAF, ("counted", 4, False)),  # BINUNICODE
    0x8D: (LEAF, ("counted", 8, False)),  # BINUNICODE8
    ord("B"): (LEAF, ("counted", 4, False)),  # BINBYTES
    ord("C"): (LEAF, ("counted", 1, False)),  # SHORT_BINBYTES
    0x8E: (LEAF, ("counted", 8, False)),  # BINBYTES8
    ord("g"): (GET, ("line", 0, True)),
    ord("h"): (GET, ("fixed", 1, True)),  # BINGET
    ord("j"): (GET, ("fixed", 4, True)),  # LONG_BINGET
    ord("p"): (PUT, ("line", 0, True)),
    ord("q"): (PUT, ("fixed", 1, True)),  # BINPUT
    ord("r"): (PUT, ("fixed", 4, True)),  # LONG_BINPUT
    0x94: (MEMOIZE, ()),
    ord("("): (MARK, ()),
    ord("]"): (EMPTY, ()),  # EMPTY_LIST
    ord("}"): (EMPTY, ()),  # EMPTY_DICT
    ord("e"): (ADD_MARKED, ()),  # APPENDS
    ord("u"): (ADD_MARKED, ()),  # SETITEMS
    ord("a"): (ADD, ("n", 1)),  # APPEND
    ord("s"): (ADD, ("n", 2)),  # SETITEM
    ord("l"): (BOX_MARKED, ()),  # LIST
    ord("t"): (BUILD_MARKED, ()),  # TUPLE
    ord("d"): (BOX_MARKED, ()),  # DICT
    ord(")"): (BUILD, ("n", 0)),  # EMPTY_TUPLE
    0x85: (BUILD, ("n", 1)),  # TUPLE1
    0x86: (BUILD, ("n", 2)),  # TUPLE2
    0x87: (BUILD, ("n", 3)),  # TUPLE3
    ord("0"): (POP, ()),
    ord("1"): (POP_MARK, ()),
    ord("2"): (DUP, ()),
    0x80: (NOP, ("fixed", 1, True)),  # PROTO
    0x95: (NOP, ("fixed", 8, True)),  # FRAME
    ord("."): (STOP, ()),
}
CHARS_PER_UNIT = 64


class Unread(ValueError):
    """Why the scan stopped: `at` is the opcode's byte; `code` where it would build an object or call
    a function, `over` where it costs more than the budget, else the pickle is not whole or sound."""

    def __init__(self, text: str, at: int, code: bool = False, over: bool = False):
        super().__init__(text)
        self.at, self.code, self.over = at, code, over


class _Box:
    """A list or dict being built: its size with all it holds; once held or shared it may change no
    more (a pickler of data never changes it then, and its size was counted as it stood)."""

    __slots__ = ("size", "used")

    def __init__(self) -> None:
        self.size, self.used = 1, False


def cost(data: bytes, budget: int) -> int:
    """What building `data` costs; Unread where it would cost more than `budget`, is no whole
    pickle, or holds an opcode not in SHAPES (Unread.at: where)."""
    return _Stack(budget).walk(data)


class _Stack:
    """The unpickler's stack, of sizes: a leaf (a number, a string, a tuple) as an int, a list or
    dict as a _Box, which grows as items are added to it."""

    def __init__(self, budget: int):
        self.budget, self.spent = budget, 0
        self.stack: list[int | _Box] = []
        self.marks: list[int] = []  # where each MARK left the stack
        self.memo: dict[int, int | _Box] = {}
        self.at = 0  # the opcode's byte
        self.does = {
            LEAF: self._leaf,
            GET: self._get,
            PUT: self._put,
            MEMOIZE: lambda _: self._put(len(self.memo)),
            MARK: lambda _: self.marks.append(len(self.stack)),
            EMPTY: lambda _: self.stack.append(_Box()),
            ADD_MARKED: lambda _: self._add(self._mark()),
            ADD: lambda n: self._add(len(self.stack) - n),
            BUILD_MARKED: lambda _: self._build(self._mark()),
            BUILD: lambda n: self._build(len(self.stack) - n),
            BOX_MARKED: lambda _: self._build(self._mark(), _Box),
            POP: self._pop,
            POP_MARK: lambda _: self.stack.__delitem__(slice(self._mark(), None)),
            DUP: lambda _: self._shared(self._above(1)[0]),
            NOP: lambda _: None,
        }

    def walk(self, data: bytes) -> int:
        pos, end = 0, len(data)
        while pos < end:
            self.at, shape = pos, SHAPES.get(data[pos])
            if shape is None:
                raise Unread("an opcode that builds an object or calls a function", pos, code=True)
            does, arg = shape
            if does == STOP:
                return self.spent + 1
            pos, value = _argument(data, pos + 1, arg, self.at)
            self.spent += 1
            self.does[does](value)
            if self.spent > self.budget:
                raise Unread(f"it builds more than {self.budget:,} objects", self.at, over=True)
        raise Unread("it ends before its STOP", pos)

    def _leaf(self, size: int) -> None:
        """A number or string: a string costs by its length (its opcode counted one)."""
        self.stack.append(size)
        self.spent += size - 1

    def _get(self, index: int) -> None:
        if index not in self.memo:
            raise Unread(f"it gets memo {index}, which it never put", self.at)
        self._shared(self.memo[index])

    def _put(self, index: int) -> None:
        # the unpickler sizes its memo by the highest index: a pickler numbers them 0, 1, 2, ...
        if not 0 <= index <= len(self.memo):
            raise Unread(f"it memoizes at {index}, past the {len(self.memo)} it holds", self.at)
        self.memo[index] = self._above(1)[0]

    def _shared(self, one: int | _Box) -> None:
        """An object used again: it costs its whole size, and a container changes no more."""
        if isinstance(one, _Box):
            one.used = True
            self.spent += one.size
        else:
            self.spent += one
        self.stack.append(one)

    def _pop(self, _: int) -> None:
        if self.marks and self.marks[-1] == len(self.stack):  # as the unpickler does: the mark, where
            self.marks.pop()  # no object is above it
        else:
            self._above(1)
            self.stack.pop()

    def _above(self, n: int) -> list[int | _Box]:
        """The top n, which must lie above the last mark (else the unpickler stops too)."""
        if len(self.stack) - n < (self.marks[-1] if self.marks else 0):
            raise Unread("it takes more from its stack than it put there", self.at)
        return self.stack[len(self.stack) - n :]

    def _mark(self) -> int:
        if not self.marks:
            raise Unread("it closes a mark it never opened", self.at)
        return self.marks.pop()

    def _held(self, start: int) -> int:
        """The objects from `start` up, taken off the stack into a container: their sizes."""
        size = 0
        for one in self.stack[start:]:
            if isinstance(one, _Box):
                one.used = True
                size += one.size
            else:
                size += one
        del self.stack[start:]
        return size

    def _add(self, start: int) -> None:
        """Items added to the list or dict beneath them (APPEND, SETITEMS, ...)."""
        if start <= (self.marks[-1] if self.marks else 0):  # nothing beneath the items, or a mark
            raise Unread("it adds to a container it never built", self.at)
        into = self.stack[start - 1]
        if not isinstance(into, _Box) or into.used:
            raise Unread("it changes a container after holding or sharing it, as no pickler does", self.at)
        into.size += self._held(start)

    def _build(self, start: int, kind: type = int) -> None:
        """A tuple of the objects from `start` up (TUPLE2, ...), a leaf as it changes no more; or a list
        or dict (LIST, DICT: `kind` _Box), which may grow."""
        if start < max(0, self.marks[-1] if self.marks else 0):
            raise Unread("it takes more from its stack than it put there", self.at)
        size = 1 + self._held(start)
        if kind is int:
            self.stack.append(size)
        else:
            self.stack.append(box := _Box())
            box.size = size


def _argument(data: bytes, pos: int, arg: tuple, at: int) -> tuple[int, int]:
    """Past the opcode's argument: where the next opcode is, and the argument as a number: a leaf's
    size (a string costs by its length), a memo index, a count of items."""
    if not arg:
        return pos, 0
    if arg[0] == "n":
        return pos, arg[1]
    if arg[0] == "fixed":
        value, pos = int.from_bytes(data[pos : pos + arg[1]], "little"), pos + arg[1]
        length = 0
    elif arg[0] == "counted":
        length = int.from_bytes(data[pos : pos + arg[1]], "little", signed=arg[1] == 4)
        if length < 0:
            raise Unread("it gives a negative length", at)
        pos += arg[1] + length
        value = 0
    else:  # a line of text
        newline = data.find(b"\n", pos)
        if newline < 0:
            raise Unread("it ends inside an opcode", at)
        line, pos = data[pos:newline], newline + 1
        length = len(line)
        value = int(line) if line.isdigit() and len(line) < 10 else -1  # a memo index, where it is one
    if pos > len(data):
        raise Unread("it ends inside an opcode", at)
    return pos, (value if arg[2] else 1 + length // CHARS_PER_UNIT)
