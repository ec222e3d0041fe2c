#!/usr/bin/env bash
# Fails when a C++ file of the tree is not clang-format clean (the root's .clang-format). Blocks that
# read better by hand (declarative command rows, tables) opt out with // clang-format off ... on.
set -euo pipefail
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cc' '*.h')
else
  mapfile -t files < <(find base resp index persistence server tests bench redis-compat \
                         -name '*.cc' -o -name '*.h')
fi
clang-format --dry-run --Werror "${files[@]}"
echo "${#files[@]} files clang-format clean"
