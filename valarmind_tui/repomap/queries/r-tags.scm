; Written for ValarMind's repo map (definitions and references).
(binary_operator lhs: (identifier) @name rhs: (function_definition)) @definition.function
(call function: (identifier) @name) @reference.call
