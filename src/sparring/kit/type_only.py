"""Type a Numba function without compiling it: its callees compile (and save to the on-disk cache), it does not.

Numba types a call of another compiled function by compiling that function for the call's argument types,
so typing a function compiles every function it reaches, exactly as its own compile would, and saves each
to the cache where that one caches. :func:`type_only` runs Numba's untyped passes (kernels marked
``inline="always"`` are inlined, as in a compile) and its type inference over a dispatcher's function, and
stops there: no lowering to LLVM, no machine code, nothing saved for the function itself. A process that then
compiles the function finds its callees in the cache and does only the function's own work.
"""

from __future__ import annotations

from numba.core import compiler
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import FunctionPass, PassManager, register_pass
from numba.core.typed_passes import NopythonTypeInference


@register_pass(mutates_CFG=False, analysis_only=True)
class StopAfterTyping(FunctionPass):
    """Ends the pipeline once the function is typed (its result: True)."""

    _name = "sparring_stop_after_typing"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        """Stop here."""
        raise compiler._EarlyPipelineCompletion(True)


class TypeOnlyCompiler(compiler.CompilerBase):
    """Numba's nopython pipeline up to and including type inference."""

    def define_pipelines(self):
        """The untyped passes, type inference, then :class:`StopAfterTyping`."""
        self.state.cr = None  # no compile result: the untyped passes' end does not end the compile
        pm = compiler.DefaultPassBuilder.define_untyped_pipeline(self.state)
        typed = PassManager("type only")
        typed.add_pass(NopythonTypeInference, "nopython frontend")
        typed.add_pass(StopAfterTyping, "stop after typing")
        typed.finalize()
        return [pm, typed]


def type_only(dispatcher, sig: tuple) -> None:
    """Type ``dispatcher``'s function for argument types ``sig`` with its own options, compiling (and caching)
    every function it calls; ``dispatcher`` itself gains no compiled version."""
    comp = dispatcher._compiler
    flags = compiler.Flags()
    comp.targetdescr.options.parse_as_flags(flags, comp.targetoptions)
    flags = comp._customize_flags(flags)
    with global_compiler_lock:
        compiler.compile_extra(
            comp.targetdescr.typing_context,
            comp.targetdescr.target_context,
            dispatcher.py_func,
            args=tuple(sig),
            return_type=None,
            flags=flags,
            locals=comp.locals,
            pipeline_class=TypeOnlyCompiler,
        )
