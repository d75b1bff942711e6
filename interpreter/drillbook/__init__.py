"""drillbook: a declarative rules language for historical wargames, and its interpreter.

Stages, data flowing one way: syntax (parse → AST) → check → compile → evaluate →
explain.  See docs/architecture.md.
"""
__version__ = "0.1.0"
