#!/usr/bin/env bash
# Counts each crate's public items from rustdoc's JSON (nightly): the
# items a user of the crate can name by a path from its root.
#
# Rule: walk the public modules from the crate root; count every module
# (not the root itself), struct, enum, union, trait, trait alias,
# function, constant, static, type alias and macro reachable that way,
# each once however many paths reach it (a `pub use` counts as the item
# it names; a glob counts the items it brings in). Fields, enum
# variants, methods, associated items and impls are not counted: they
# belong to the item they sit in. A crate with a `testing` feature is
# counted without it and again with it.
#
# Usage: scripts/public-items.sh [CRATE...]   (default: netlab-analysis netlab-compare netlab-figures netlab-export netlab-report)
set -euo pipefail
cd "$(dirname "$0")/.."
crates=("$@")
[ ${#crates[@]} -gt 0 ] || crates=(netlab-analysis netlab-compare netlab-figures netlab-export netlab-report)
target=${CARGO_TARGET_DIR:-target}

count() { # JSON file -> number of public items
    jq '
      . as $d
      | def kind($id): ($d.index[$id|tostring].inner // {}) | keys[0];
        def walk_mod($id; $seen):
          reduce (($d.index[$id|tostring].inner.module.items // [])[]) as $c ($seen;
            if . | has($c|tostring) then .
            else
              kind($c) as $k
              | if $k == "use" then
                  ($d.index[$c|tostring].inner.use) as $u
                  | if $u.id == null then .[$c|tostring] = "external"
                    elif $u.is_glob then walk_mod($u.id; .)
                    elif has($u.id|tostring) then .
                    else .[$u.id|tostring] = kind($u.id)
                      | if kind($u.id) == "module" then walk_mod($u.id; .) else . end
                    end
                elif $k == "module" then .[$c|tostring] = "module" | walk_mod($c; .)
                elif $k == null then .
                else .[$c|tostring] = $k
                end
            end);
        walk_mod($d.root; {})
        | [.[] | select(IN("module","struct","enum","union","trait","trait_alias",
                          "function","constant","static","type_alias","macro",
                          "proc_macro","external"))]
        | length' "$1"
}

for c in "${crates[@]}"; do
    file="$target/doc/${c//-/_}.json"
    line="$c:"
    for features in "" testing; do
        if [ -n "$features" ]; then
            has=$(cargo metadata --no-deps --format-version 1 |
                jq --arg c "$c" '[.packages[] | select(.name == $c) | .features | has("testing")] | any')
            [ "$has" = true ] || continue
        fi
        cargo +nightly rustdoc -q -p "$c" --lib ${features:+--features $features} \
            -- -Z unstable-options --output-format json 2>/dev/null
        if [ -n "$features" ]; then
            line="$line $(count "$file") with feature $features"
        else
            line="$line $(count "$file") public items"
        fi
    done
    echo "$line"
done
