"""Mutants of a Python module: every small change to its rules that a test should notice.

``mutants(text, path)`` lists one ``Mutant`` per change of these kinds:

* ``operator``: an arithmetic or bitwise operator swapped (``+`` and ``-``, ``*`` to ``+`` ...),
  in expressions and in augmented assignments (``+=`` to ``-=``);
* ``comparison``: a boundary moved (``<`` and ``<=``, ``>`` and ``>=``) or an equality, membership
  or identity test inverted (``==`` and ``!=``, ``in`` and ``not in``, ``is`` and ``is not``);
* ``boolean``: ``and`` and ``or`` swapped, a ``not`` or a unary minus removed;
* ``condition``: the test of an ``if``, ``elif``, ``while``, conditional expression or
  comprehension filter negated (which also inverts every ordering comparison used as one);
* ``constant``: an integer or float constant plus one, ``True`` and ``False`` swapped;
* ``statement``: a simple statement of a function body removed (replaced by ``pass``): an
  assignment, a call, a ``return``, ``break``, ``continue``, ``raise`` or ``del``.

Left alone, because a change there says nothing about the rules: strings (card, option and event
names, messages), annotations, docstrings, ``assert`` statements (internal checks), imports,
``if TYPE_CHECKING:`` blocks, f-strings, and a bare ``return`` that ends a function.

A mutant is applied by replacing the source text of one node (``apply``), so the rest of the file,
its comments and its line numbers stay as they are. Its ``id`` is a hash of the file, the
enclosing function, the change and the change's rank among identical ones there: it does not move
when unrelated lines are edited, so a list of explained survivors stays valid.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

OPERATORS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.BitOr: ast.BitAnd,
    ast.BitAnd: ast.BitOr,
    ast.BitXor: ast.BitOr,
}
COMPARISONS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
INVERTED = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)
REMOVABLE = (
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Expr,
    ast.Return,
    ast.Break,
    ast.Continue,
    ast.Raise,
    ast.Delete,
)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class Mutant:
    """One change to one node of one file: ``original`` (its source) becomes ``replacement``."""

    id: str
    path: str  # relative to the project root, with '/'
    line: int
    kind: str
    original: str
    replacement: str
    start: tuple[int, int]  # (line, byte column) of the node, as ast gives it
    end: tuple[int, int]

    def change(self, width: int = 100) -> str:
        """``original -> replacement`` on one line, shortened to about ``width`` characters."""
        text = f"{_one_line(self.original)}  ->  {_one_line(self.replacement)}"
        return text if len(text) <= width else text[: width - 3] + "..."


def _one_line(text: str) -> str:
    return " ".join(text.split())


def apply(text: str, mutant: Mutant) -> str:
    """The module's source with the mutant's node replaced (offsets are UTF-8 byte columns)."""
    data = text.encode()
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    begin = starts[mutant.start[0] - 1] + mutant.start[1]
    end = starts[mutant.end[0] - 1] + mutant.end[1]
    return (data[:begin] + mutant.replacement.encode() + data[end:]).decode()


def mutants(text: str, path: str) -> list[Mutant]:
    """Every mutant of the module ``text`` (found at ``path``), in source order."""
    found: list[Mutant] = []
    seen: dict[str, int] = {}
    for scope, node, kind, new in _Walker().changes(ast.parse(text)):
        original = ast.get_source_segment(text, node) or ast.unparse(node)
        if new is None:
            replacement = "pass"
        elif isinstance(node, ast.stmt):
            replacement = ast.unparse(new)
        else:
            replacement = f"({ast.unparse(new)})"
        key = f"{path}|{scope}|{kind}|{ast.unparse(node)}|{replacement}"
        rank = seen.get(key, 0)
        seen[key] = rank + 1
        found.append(
            Mutant(
                id=hashlib.sha256(f"{key}|{rank}".encode()).hexdigest()[:10],
                path=path,
                line=node.lineno,
                kind=kind,
                original=original,
                replacement=replacement,
                start=(node.lineno, node.col_offset),
                end=(node.end_lineno or node.lineno, node.end_col_offset or 0),
            )
        )
    return found


# scope (enclosing defs), node replaced, kind, the node put in its place (None: removed)
Change = tuple[str, ast.AST, str, ast.AST | None]
SKIPPED_FIELDS = ("annotation", "returns", "decorator_list", "type_comment")


class _Walker:
    """Walks a module, tracking the enclosing def/class names and whether code is in a function."""

    def __init__(self) -> None:
        self.scope = ""
        self.in_function = False

    def changes(self, node: ast.AST) -> Iterator[Change]:
        if _left_alone(node):
            return
        saved = self.scope, self.in_function
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self.scope = f"{self.scope}.{node.name}" if self.scope else node.name
        for target, kind, new in _own_changes(node, self.in_function):
            yield self.scope, target, kind, new
        self.in_function = self.in_function or isinstance(node, FUNCTIONS)
        for field, value in ast.iter_fields(node):
            if field in SKIPPED_FIELDS:
                continue
            children = value if isinstance(value, list) else [value]
            for child in _kept(node, field, children):
                if isinstance(child, ast.AST):
                    yield from self.changes(child)
        self.scope, self.in_function = saved


def _left_alone(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert | ast.Import | ast.ImportFrom | ast.JoinedStr):
        return True
    if isinstance(node, ast.If):
        test = node.test
        return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)  # docstrings


def _kept(node: ast.AST, field: str, children: list) -> list:
    """The children worth mutating: all but the bare ``return`` that ends a function."""
    if isinstance(node, ast.FunctionDef) and field == "body":
        last = children[-1]
        if isinstance(last, ast.Return) and last.value is None:
            return children[:-1]
    return children


def _own_changes(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.AST, str, ast.AST | None]]:
    """The changes made at ``node`` itself: (node replaced, kind, replacement)."""
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        yield node, "operator", ast.BinOp(node.left, OPERATORS[type(node.op)](), node.right)
    elif isinstance(node, ast.AugAssign) and type(node.op) in OPERATORS:
        yield node, "operator", ast.AugAssign(node.target, OPERATORS[type(node.op)](), node.value)
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            ops = list(node.ops)
            ops[i] = COMPARISONS[type(op)]()
            yield node, "comparison", ast.Compare(node.left, ops, node.comparators)
    elif isinstance(node, ast.BoolOp):
        swapped = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield node, "boolean", ast.BoolOp(swapped, node.values)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
        yield node, "boolean", node.operand
    elif isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            yield node, "constant", ast.Constant(not value)
        elif isinstance(value, int | float):
            yield node, "constant", ast.Constant(value + 1)
    if isinstance(node, ast.If | ast.While | ast.IfExp):
        yield from _negated(node.test)
    elif isinstance(node, ast.comprehension):
        for test in node.ifs:
            yield from _negated(test)
    if in_function and isinstance(node, REMOVABLE) and not _binds_locals_only(node):
        yield node, "statement", None


def _binds_locals_only(node: ast.AST) -> bool:
    """An assignment to local names only: removing it is a NameError wherever it runs, which says
    the line is run by a test, not that a rule is checked (the value's own mutants do that)."""
    if isinstance(node, ast.Assign):
        return all(_local(t) for t in node.targets)
    return isinstance(node, ast.AnnAssign) and (node.value is None or _local(node.target))


def _local(target: ast.expr) -> bool:
    if isinstance(target, ast.Tuple | ast.List):
        return all(_local(t) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _local(target.value)
    return isinstance(target, ast.Name)


def _negated(test: ast.expr) -> Iterator[tuple[ast.AST, str, ast.AST | None]]:
    """``not (test)``, unless that only repeats a simpler mutant: a constant, a ``not``, or one
    comparison that the ``comparison`` kind already inverts (``==``, ``in``, ``is`` ...)."""
    if isinstance(test, ast.Constant):
        return
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in INVERTED:
        return
    yield test, "condition", ast.UnaryOp(ast.Not(), test)
