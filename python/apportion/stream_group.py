"""Groups of streams: several apportion.Stream objects of the same series count fed the same
bars in one call, by input name, all or nothing (docs/python.md, "Groups of streams";
docs/streaming.md, "Groups"). The C type (_core.StreamGroup, python/src/stream_group_type.c)
takes each named input packed series after series; this module turns the caller's blocks
into that layout, once for the whole group, and each stream's outputs back into the
caller's shape as Stream.update gives them.
"""

from collections.abc import Mapping

from . import _arrays, _core
from .stream import Stream


class StreamGroup(_core.StreamGroup):
    """Streams fed together: ``streams`` is a list of apportion.Stream objects (or a mapping
    of them by any key), every one following the same number of series, each once. An
    update takes every input once, by name, feeds every stream the inputs its kernel reads,
    and returns each stream's outputs, a list in the streams' order (a dict with the same
    keys for a mapping):

        g = apportion.StreamGroup({"boll": boll, "atr": atr, "mfi": mfi})
        out = g.update(high=h, low=l, close=c, volume=v)   # out["atr"].atr, out["mfi"].mfi ...

    A refused update raises and moves no stream. ``bind`` names, for a stream whose kernel's
    inputs are not the bars' names, the group input that feeds each of its inputs: a mapping
    from the stream's key (its position in a list) to {kernel input: group input}
    (``bind={"corr": {"x": "close", "y": "high"}}``); inputs not named keep their own
    names. Names are matched whatever their case. The group holds its streams but does not
    own them: they are still saved, forked and closed as streams, and while a group call
    runs no other call may use them.
    """

    def __init__(self, streams, *, bind=None):
        if isinstance(streams, Mapping):
            keys, members = list(streams), list(streams.values())
        elif isinstance(streams, (list, tuple)):
            keys, members = None, list(streams)
        else:
            raise TypeError(f"streams is a list or a mapping of apportion.Stream objects, not {type(streams).__name__}")
        for j, s in enumerate(members):
            if not isinstance(s, Stream):
                raise TypeError(f"stream {keys[j] if keys else j!r} of the group is {s!r}, not an apportion.Stream")
        labels = keys if keys is not None else list(range(len(members)))
        binds = _bindings(members, labels, bind)
        super().__init__(tuple(members), tuple(binds))
        self._keys, self._members = keys, members
        # The group input that feeds each input of each stream, lower case.
        self._reads = [b if b is not None else tuple(n.lower() for n in s.inputs) for s, b in zip(members, binds)]
        self._inputs = list(dict.fromkeys(name for r in self._reads for name in r))

    @property
    def streams(self):
        """The group's streams: a list, or a dict when the group was made from a mapping."""
        return list(self._members) if self._keys is None else dict(zip(self._keys, self._members))

    @property
    def inputs(self):
        """The names of the inputs the group's streams read (lower case), each once: what an
        update needs."""
        return list(self._inputs)

    def __len__(self):
        return len(self._members)

    def __repr__(self):
        if self.closed:
            return "<apportion.StreamGroup (closed)>"
        kernels = ", ".join(s.kernel for s in self._members)
        return f"<apportion.StreamGroup [{kernels}] series={self.n_series} inputs={','.join(self._inputs)}>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def update(self, bars=None, /, *, axis=None, **named):
        """Appends the same number of new bars to every series of every stream and returns each
        stream's outputs as its Stream.update would (a named tuple of the kernel's outputs,
        shaped like the bars; a sweep's with its sets axis), in a list in the streams' order,
        or a dict by the streams' keys (apo_stream_group_update). The bars, each input once:

        - by keyword (``update(high=h, low=l, close=c, volume=v)``) or one mapping of them,
          each input shaped as Stream.update takes one (one value a series, a 2-D block with
          ``axis``, a DataFrame whose columns are the series), all alike;
        - a DataFrame whose columns are the inputs and whose rows are the series: one new bar
          a series (a frame of the latest bar of every symbol), outputs as Series on its index.

        Names are matched whatever their case; inputs that no stream reads are ignored. All or
        nothing: a refusal raises and leaves every stream, ``bytes(stream)`` byte for byte, as
        it was."""
        return self._feed(self._update, bars, axis, named)

    def peek(self, bars=None, /, *, axis=None, **named):
        """What ``update`` with the same arguments would return, bit for bit, without
        committing the bars (apo_stream_group_peek): every stream is left as it was."""
        return self._feed(self._peek, bars, axis, named)

    def _feed(self, call, bars, axis, named):
        source = _by_name(bars, named)
        packed, layouts = [], []
        first = self._members[0]
        for name in self._inputs:
            if name not in source:
                readers = ", ".join(f"{self._label(j)} ({s.kernel})" for j, s in enumerate(self._members) if name in self._reads[j])
                raise KeyError(f"the group needs the input {name!r}, read by stream {readers}; given: {', '.join(source) or 'none'}")
            arr, layout = first._packed(name, source[name], axis)
            if layouts and (arr.shape != packed[0][1].shape or layout.one_d != layouts[0].one_d):
                raise ValueError(f"input {name} has another shape than {self._inputs[0]}; every input needs the same")
            if layouts and not _same_layout(layout, layouts[0]):
                raise ValueError(f"input {name} is not laid out as {self._inputs[0]} (another kind of block, index or columns); every input needs the same")
            packed.append((name, arr))
            layouts.append(layout)
        shape = packed[0][1].shape
        outs = call(tuple(packed), 1 if len(shape) == 1 else shape[1])
        results = [s._present(o, layouts[0]) for s, o in zip(self._members, outs)]
        return results if self._keys is None else dict(zip(self._keys, results))

    def _label(self, j):
        return repr(self._keys[j]) if self._keys is not None else str(j)


def _bindings(members, labels, bind):
    """One entry a stream: None (its kernel's own input names), or a tuple of the group input
    names (lower case) that feed its kernel's inputs, in the kernel's order."""
    if bind is None:
        return [None] * len(members)
    if not isinstance(bind, Mapping):
        raise TypeError("bind is a mapping from a stream's key (its position in a list) to {kernel input: group input}")
    unknown = [k for k in bind if k not in labels]
    if unknown:
        raise KeyError(f"bind names {unknown[0]!r}, which is no stream of the group (its keys: {', '.join(map(repr, labels))})")
    out = []
    for label, s in zip(labels, members):
        b = bind.get(label)
        if b is None:
            out.append(None)
            continue
        if not isinstance(b, Mapping):
            raise TypeError(f"bind of stream {label!r}: a mapping {{kernel input: group input}}, not {type(b).__name__}")
        own = {n.lower(): n for n in s.inputs}
        names = {n.lower(): n.lower() for n in s.inputs}
        for k, v in b.items():
            if not isinstance(k, str) or k.lower() not in own:
                raise TypeError(f"bind of stream {label!r}: kernel {s.kernel} has no input {k!r} (its inputs: {', '.join(s.inputs)})")
            if not isinstance(v, str) or not v:
                raise TypeError(f"bind of stream {label!r}: input {k!r} needs a group input's name, not {v!r}")
            names[k.lower()] = v.lower()
        out.append(tuple(names[n.lower()] for n in s.inputs))
    return out


def _by_name(bars, named):
    """The update's inputs as {lower-case name: block}."""
    named = {k: v for k, v in named.items() if v is not None}
    if named:
        if bars is not None:
            raise TypeError("give the group's inputs either as one mapping or DataFrame, or by keyword, not both")
        source = named
    elif isinstance(bars, Mapping):
        source = bars
    elif _arrays._is_pandas(bars) and hasattr(bars, "columns"):
        source = {c: bars[c] for c in bars.columns}
    else:
        raise TypeError("a group takes its inputs by name: by keyword (close=...), as one mapping, or as a DataFrame whose columns are the inputs")
    out, given = {}, {}
    for key, block in source.items():
        if not isinstance(key, str):
            raise TypeError(f"an input's name is a str, not {key!r}")
        low = key.lower()
        if low in out:
            raise ValueError(f"the inputs {given[low]!r} and {key!r} are one name (names are matched whatever their case); keep one")
        out[low], given[low] = block, key
    return out


def _same_layout(a, b):
    """Whether two inputs came in alike: the same kind of block (array, Series, DataFrame),
    the same orientation, and pandas labels that agree (bars of one date, series of one
    name), so that every stream's outputs go back in one shape."""
    if a.pandas != b.pandas or a.bars_first != b.bars_first:
        return False
    for x, y in ((a.index, b.index), (a.columns, b.columns)):
        if (x is None) != (y is None) or (x is not None and not x.equals(y)):
            return False
    return True
