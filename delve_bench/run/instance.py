"""One task instance as a method sees it: DELVE's default coding fitted on its training set.

:func:`load_instance` is the one place that turns a task instance into arrays; the runner,
the tests and the benchmarks all use it, so they see exactly the same encoded data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data import load_dataset
from ..data.encoding import Coding, fit_coding
from ..errors import DelveError
from ..tasks.instances import Instance, task_layout
from ..tasks.names import TaskRef, resolve_tasks
from ..tasks.spec import prototask_spec
from ..workspace import WorkspaceDirs


@dataclass(frozen=True)
class EncodedInstance:
    """The arrays of one task instance (cases in index-file order).

    Attributes
    ----------
    task : str
        Full task name, ``dataset/prototask/std.<n>``.
    instance : Instance
        Index and 0-based dataset case numbers of the training set ``train`` (n,) and the
        test set ``test`` (t,).
    X_train : ndarray of shape (n, m)
        Encoded training inputs (m encoded columns: one per real or binary attribute,
        one per value of a nominal one).
    y_train : ndarray of shape (n,)
        Encoded training targets.
    X_test : ndarray of shape (t, m)
        Encoded test inputs.
    y_test : ndarray of shape (t,)
        Raw (un-encoded) test targets: the losses are computed against these.
    coding : Coding
        The encoding, fitted on the training set only; ``coding.decode`` maps predictions
        back to original units.
    raw_train : ndarray of shape (n, k)
        Raw training inputs (k input attributes), for plugins with ``wants_raw``.
    raw_y_train : ndarray of shape (n,)
        Raw training targets.
    raw_test : ndarray of shape (t, k)
        Raw test inputs.
    """

    task: str
    instance: Instance
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    coding: Coding
    raw_train: np.ndarray
    raw_y_train: np.ndarray
    raw_test: np.ndarray

    @property
    def index(self) -> int:
        return self.instance.index

    @property
    def y_test_encoded(self) -> np.ndarray:
        """Test targets in the encoded space the method predicts in, shape (t,)."""
        return self.coding.target(self.y_test)


def _ref(ws: WorkspaceDirs, task: TaskRef | str) -> TaskRef:
    if isinstance(task, TaskRef):
        return task
    refs = resolve_tasks(ws, [task])
    if len(refs) != 1:
        raise DelveError(f"{task!r} names {len(refs)} tasks; name one, e.g. kin-8nm/std.256")
    return refs[0]


def load_instance(ws: WorkspaceDirs, task: TaskRef | str, i: int) -> EncodedInstance:
    """Instance ``i`` of ``task`` with DELVE's default coding fitted on its training set.

    Parameters
    ----------
    ws : WorkspaceDirs
        Where the specs, index files and data are found.
    task : TaskRef or str
        The task, e.g. ``"kin-8nm/std.256"``.
    i : int
        Instance number, from 0.

    Returns
    -------
    EncodedInstance
    """
    ref = _ref(ws, task)
    proto = prototask_spec(ws, ref.dataset, ref.prototask)
    layout = task_layout(ws, proto, ref.size)
    if not 0 <= i < len(layout.instances):
        raise DelveError(
            f"{ref.full_name} has instances 0-{len(layout.instances) - 1}; no instance {i}"
        )
    inst = layout.instances[i]
    ds = load_dataset(ws, proto.dataset)
    attrs = [ds.spec.attributes[j] for j in proto.inputs]
    target = ds.spec.attributes[proto.targets[0]]
    col, inputs = proto.targets[0], np.asarray(proto.inputs, dtype=np.intp)
    xtr, ytr = ds.values[np.ix_(inst.train, inputs)], ds.values[inst.train, col]
    xte, yte = ds.values[np.ix_(inst.test, inputs)], ds.values[inst.test, col]
    coding = fit_coding(xtr, ytr, attrs, target)
    return EncodedInstance(
        task=ref.full_name,
        instance=inst,
        X_train=coding.inputs(xtr),
        y_train=coding.target(ytr),
        X_test=coding.inputs(xte),
        y_test=yte,
        coding=coding,
        raw_train=xtr,
        raw_y_train=ytr,
        raw_test=xte,
    )
