; Preprocessor directives and the text in them that the preprocessor reads as
; identifiers: macro bodies, #if/#elif conditions, #ifdef names, pragma and
; #undef arguments. A file-scope name used here cannot be renamed safely.
(preproc_def value: (_) @text) @directive
(preproc_function_def value: (_) @text) @directive
(preproc_if condition: (_) @text) @directive
(preproc_elif condition: (_) @text) @directive
(preproc_ifdef name: (_) @text) @directive
(preproc_elifdef name: (_) @text) @directive
(preproc_call argument: (_) @text) @directive
