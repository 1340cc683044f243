; Written for ValarMind's repo map (definitions and references).
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(class name: [(constant) @name (scope_resolution name: (_) @name)]) @definition.class
(module name: [(constant) @name (scope_resolution name: (_) @name)]) @definition.module
(call method: (identifier) @name) @reference.call
(superclass (constant) @name) @reference.class
(call receiver: (constant) @name) @reference.class
