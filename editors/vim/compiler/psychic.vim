" Vim compiler file for psychic: the places where candidate patches behave
" differently, in the quickfix list.
"
"   :set runtimepath+=/path/to/psychic/editors/vim
"   :compiler psychic
"   :make orig.c fix1.c fix2.c          (or :make % %:h/fix*.c)
"
" Warnings are at the code of the revisions that differ from the original;
" notes at the meta-branch sites of the diverging path, in every revision's file.

if exists("current_compiler")
  finish
endif
let current_compiler = "psychic"

if exists(":CompilerSet") != 2
  command -nargs=* CompilerSet setlocal <args>
endif

CompilerSet makeprg=psychic\ diff-patches\ --quiet\ --diagnostics\ gcc
CompilerSet errorformat=%f:%l:%c:\ %trror:\ %m,
      \%f:%l:%c:\ %tarning:\ %m,
      \%f:%l:%c:\ %tote:\ %m,
      \psychic:\ error:\ %f:%l:%c:\ %m,
      \psychic:\ error:\ %m,
      \%-G%.%#
