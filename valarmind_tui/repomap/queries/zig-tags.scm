; Written for ValarMind's repo map (definitions and references).
(FnProto function: (IDENTIFIER) @name) @definition.function
(VarDecl variable_type_function: (IDENTIFIER) @name (ErrorUnionExpr (SuffixExpr (ContainerDecl)))) @definition.class
(SuffixExpr variable_type_function: (IDENTIFIER) @name (FnCallArguments)) @reference.call
