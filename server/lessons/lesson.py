"""A lesson as data: its stages, each a run of the seed lecture's kind (collective, algorithm,
ranks, dtype, op and the inputs typed in per rank), an optional question asked before it runs,
an optional code snippet with what each rank prints, and a caption in every language the page
speaks. A stage's run is checked as any run is (validation.validate) on the ranks it asks for."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictInt, field_validator

from ringside.server.polls import custom
from ringside.server.polls.custom import CustomFields
from ringside.server.polls.questions import MAX_SECONDS, MIN_SECONDS, Question
from ringside.worker_agent.core.algorithms import algorithm_of
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import MAX_WORLD, Collective, DType, Number, Op, RunSpec, Strict
from ringside.worker_agent.core.run_shape import planned_schedule
from ringside.worker_agent.core.validation import SpecError, validate

VERSION = 1
MAX_STAGES = 64
MAX_CODE = 4000  # characters of a snippet or of what its ranks print: a projector's column
MAX_CAPTION = 400
MAX_VALUES = 4096  # typed in, all ranks together: a lesson shows them, it does not benchmark


class Words(Strict):
    """One text in each language of the page."""

    en: str = Field(min_length=1, max_length=MAX_CAPTION)
    ko: str = Field(min_length=1, max_length=MAX_CAPTION)
    zh: str = Field(min_length=1, max_length=MAX_CAPTION)


class StageQuestion(CustomFields):
    """A poll's question (polls/questions.py), asked before the stage's run runs, held; or the
    lecturer's own (ask = "custom", polls/custom.py), with the stage's run held behind it."""

    ask: Question
    rank: StrictInt | None = Field(None, ge=0, lt=MAX_WORLD)
    step: StrictInt | None = Field(None, ge=0, lt=1 << 16)
    numeric: bool = False
    seconds: StrictInt | None = Field(None, ge=MIN_SECONDS, le=MAX_SECONDS)


class Stage(Strict):
    collective: Collective
    algorithm: str = "native"
    ranks: StrictInt = Field(ge=1, le=MAX_WORLD, description="how many ranks: the cluster's first ones")
    root: StrictInt = 0
    dtype: DType = "float32"
    op: Op = "SUM"
    count: StrictInt | None = Field(None, description="elements a block; default: from the inputs")
    inputs: list[list[Number]] | None = Field(None, description="one list a rank, as RunSpec.inputs")
    pattern: Literal["rank", "index", "digits", "own_rank", "powers", "origin"] | None = None
    question: StageQuestion | None = None
    code: str | None = Field(None, max_length=MAX_CODE)
    prints: str | None = Field(None, max_length=MAX_CODE, description="what each rank prints")
    caption: Words

    @field_validator("count")
    @classmethod
    def _positive(cls, count: int | None) -> int | None:
        if count is not None and count < 1:
            raise ValueError("must be positive")
        return count

    @field_validator("inputs")
    @classmethod
    def _few(cls, inputs: list[list[float]] | None) -> list[list[float]] | None:
        if inputs is not None and sum(len(row) for row in inputs) > MAX_VALUES:
            raise ValueError(f"at most {MAX_VALUES} values in all: a lesson shows them")
        return inputs

    def run(self) -> RunSpec:
        """The stage's run on ranks 0 … ranks−1, checked as any run is (SpecError naming the field)."""
        spec = RunSpec.model_validate(
            {
                "collective": self.collective,
                "algorithm": self.algorithm,
                "root": self.root,
                "dtype": self.dtype,
                "op": self.op,
                "count": self.count or self._count_of_inputs(),
                "inputs": self.inputs,
                "pattern": self.pattern or "digits",
                "capture": "full",
            }
        )
        validate(spec, self.ranks, "gloo")
        if self.question is not None:
            self._asks_within(spec)
        return spec

    def _asks_within(self, spec: RunSpec) -> None:
        """The question's rank and step are the run's (the poll says the rest when it is asked)."""
        q = self.question
        assert q is not None
        try:
            custom.check(q.ask, q, q.numeric)
        except SpecError as e:  # the reader names the stage, and the question's field
            raise SpecError(f"question.{e.field}", e.message) from None
        if q.rank is not None and q.rank >= self.ranks:
            raise SpecError("question", f"rank {q.rank} is not one of the stage's {self.ranks} ranks")
        if q.step is None:
            return
        record = algorithm_of(spec.collective, spec.algorithm)
        if not record.planned:
            why = "is native: it has no steps" if record.reference else "runs code: its steps come as it runs"
            raise SpecError("question", f"step {q.step} (from 0): this run {why}")
        steps = len(planned_schedule(spec, self.ranks).steps)
        if q.step >= steps:
            raise SpecError("question", f"step {q.step} (from 0): this run has {steps} steps")

    def _count_of_inputs(self) -> int:
        """The first rank's input, in blocks of the count: default 4 without inputs."""
        if self.inputs is None:
            return 4
        collective = get(self.collective)
        root = self.root if 0 <= self.root < self.ranks else 0
        for r, row in enumerate(self.inputs[: self.ranks]):
            blocks = len(collective.input_blocks(r, self.ranks, root))
            if row and blocks:
                return max(1, len(row) // blocks)
        return 1


class Lesson(Strict):
    version: Literal[1]
    title: Words
    stages: list[Stage] = Field(min_length=1, max_length=MAX_STAGES)
