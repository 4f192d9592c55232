//! No function of the product's code (every `src/` of `crates/` and
//! `bins/`, test modules aside) is over 100 lines without its reason
//! written beside it: a `// Long: …` comment among the lines just above
//! its `fn` (doc comments and attributes may sit between). No source file
//! is over 800 lines before its test module, and no package over 6,000
//! such lines in all.

use std::path::Path;

/// Longest a function may be without a written reason, in lines from its
/// `fn` line to its closing brace.
const MAX_LINES: usize = 100;

/// Longest a source file may be before its test module, in lines.
const MAX_FILE_LINES: usize = 800;

/// Most lines a package's sources may hold before their test modules: a
/// crate larger than that holds more than one job (docs/architecture.md,
/// "What each crate does").
const MAX_PACKAGE_LINES: usize = 6000;

mod tree;

/// Each line's opening and closing braces, with strings, chars and
/// comments left out.
fn brace_deltas(text: &str) -> Vec<(i32, i32)> {
    let b = text.as_bytes();
    let mut deltas = vec![(0, 0)];
    let mut i = 0;
    let mut block_comments = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            deltas.push((0, 0));
            i += 1;
            continue;
        }
        if block_comments > 0 {
            if b[i..].starts_with(b"*/") {
                block_comments -= 1;
                i += 2;
            } else if b[i..].starts_with(b"/*") {
                block_comments += 1;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if b[i..].starts_with(b"/*") {
            block_comments += 1;
            i += 2;
            continue;
        }
        // Raw strings: r"…", r#"…"#, br"…".
        if (c == b'r' || (c == b'b' && b.get(i + 1) == Some(&b'r')))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let mut j = i + if c == b'b' { 2 } else { 1 };
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) == Some(&b'"') {
                let mut close = vec![b'"'];
                close.extend(std::iter::repeat_n(b'#', hashes));
                j += 1;
                while j < b.len() && !b[j..].starts_with(&close) {
                    if b[j] == b'\n' {
                        deltas.push((0, 0));
                    }
                    j += 1;
                }
                i = j + close.len();
                continue;
            }
        }
        if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                if i < b.len() && b[i] == b'\n' {
                    deltas.push((0, 0));
                }
                i += 1;
            }
            i += 1;
            continue;
        }
        // A char literal ('{', '\'', '\u{7b}'), not a lifetime ('a).
        if c == b'\'' {
            if b.get(i + 1) == Some(&b'\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != b'\'' {
                    j += 1;
                }
                i = j + 1;
                continue;
            }
            if b.get(i + 2) == Some(&b'\'') {
                i += 3;
                continue;
            }
        }
        let last = deltas.last_mut().unwrap();
        match c {
            b'{' => last.0 += 1,
            b'}' => last.1 += 1,
            _ => {}
        }
        i += 1;
    }
    deltas
}

/// The name of the function a line starts, if it does.
fn fn_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    loop {
        let before = rest;
        if let Some(r) = rest.strip_prefix("pub(") {
            rest = r.split_once(')')?.1.trim_start();
        }
        for word in ["pub ", "const ", "async ", "unsafe ", "extern \"C\" "] {
            if let Some(r) = rest.strip_prefix(word) {
                rest = r.trim_start();
            }
        }
        if rest == before {
            break;
        }
    }
    let r = rest.strip_prefix("fn ")?;
    let end = r
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(r.len());
    Some(&r[..end])
}

/// Functions over `MAX_LINES` lines with no `// Long:` above them, as
/// `file:line name (n lines)`.
fn unexplained(path: &Path, text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let deltas = brace_deltas(text);
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        // A test module is test code: skipped whole.
        let test_module = lines[i].trim() == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|l| l.trim_start().starts_with("mod ") && l.trim_end().ends_with('{'));
        let name = fn_name(lines[i]);
        if !test_module && name.is_none() {
            i += 1;
            continue;
        }
        // The item's end: where its braces balance again (a `fn` ending in
        // `;` before any brace is a declaration).
        let (mut depth, mut opened, mut j) = (0, false, if test_module { i + 1 } else { i });
        while j < lines.len() {
            let (opens, closes) = deltas[j];
            if !opened && opens == 0 && lines[j].trim_end().ends_with(';') {
                break;
            }
            depth += opens - closes;
            opened |= opens > 0;
            if opened && depth <= 0 {
                break;
            }
            j += 1;
        }
        if let (false, Some(name), true) = (test_module, name, opened) {
            let n = j - i + 1;
            let mut k = i;
            let mut reason = false;
            while k > 0 {
                k -= 1;
                let above = lines[k].trim_start();
                if !(above.starts_with("//") || above.starts_with("#[")) {
                    break;
                }
                reason |= above.starts_with("// Long:");
            }
            if n > MAX_LINES && !reason {
                let rel = tree::relative(path);
                found.push(format!("{rel}:{} {name} ({n} lines)", i + 1));
            }
        }
        // Nested functions are inside the item: the scan goes on after it
        // only for test modules; a function's inner items count with it.
        i = if opened { j + 1 } else { i + 1 };
    }
    found
}

#[test]
fn every_function_over_100_lines_says_why() {
    let files = tree::product_sources();
    assert!(files.len() > 100, "found only {} source files", files.len());
    let found: Vec<String> = files
        .iter()
        .flat_map(|f| unexplained(f, &std::fs::read_to_string(f).unwrap()))
        .collect();
    assert!(
        found.is_empty(),
        "functions over {MAX_LINES} lines without a `// Long: <why>` above them:\n{}",
        found.join("\n")
    );
}

/// A file's lines before its test module (`#[cfg(test)]` over a `mod`);
/// a file that is a test module itself (`tests.rs`) has none.
fn lines_before_tests(path: &Path, text: &str) -> usize {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return 0;
    }
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .enumerate()
        .position(|(i, l)| {
            l.trim() == "#[cfg(test)]"
                && lines
                    .get(i + 1)
                    .is_some_and(|n| n.trim_start().starts_with("mod "))
        })
        .unwrap_or(lines.len())
}

#[test]
fn every_file_is_at_most_800_lines_before_its_tests() {
    let files = tree::product_sources();
    let over: Vec<String> = files
        .iter()
        .map(|f| {
            (
                f,
                lines_before_tests(f, &std::fs::read_to_string(f).unwrap()),
            )
        })
        .filter(|(_, n)| *n > MAX_FILE_LINES)
        .map(|(f, n)| format!("{} ({n} lines)", tree::relative(f)))
        .collect();
    assert!(
        over.is_empty(),
        "source files over {MAX_FILE_LINES} lines before their tests (split them by what \
         they do):\n{}",
        over.join("\n")
    );
}

#[test]
fn every_package_is_at_most_6000_lines_before_its_tests() {
    let mut over = Vec::new();
    for package in tree::packages() {
        let files = tree::files_under(&package.join("src"), Some("rs"));
        let n: usize = files
            .iter()
            .map(|f| lines_before_tests(f, &std::fs::read_to_string(f).unwrap()))
            .sum();
        if n > MAX_PACKAGE_LINES {
            over.push(format!("{} ({n} lines)", tree::relative(&package)));
        }
    }
    assert!(
        over.is_empty(),
        "packages over {MAX_PACKAGE_LINES} lines before their tests (split off a job \
         of their own):\n{}",
        over.join("\n")
    );
}

#[test]
fn a_file_is_counted_up_to_its_test_module() {
    let text = "fn a() {}\n#[cfg(test)]\nfn helper() {}\nfn b() {}\n#[cfg(test)]\nmod tests {\n}\n";
    assert_eq!(lines_before_tests(Path::new("src/x.rs"), text), 4);
    assert_eq!(lines_before_tests(Path::new("src/x.rs"), "fn a() {}\n"), 1);
    assert_eq!(lines_before_tests(Path::new("src/x/tests.rs"), text), 0);
}

#[test]
fn the_check_counts_what_a_function_spans() {
    let body: String = (0..120)
        .map(|k| format!("    let _x{k} = '{{';\n"))
        .collect();
    let long = format!("/// Docs.\npub fn long() {{\n{body}}}\n");
    let flagged = unexplained(Path::new("x.rs"), &long);
    assert_eq!(flagged, vec!["x.rs:2 long (122 lines)".to_string()]);

    let explained =
        format!("/// Docs.\n// Long: a reason.\n#[inline]\npub fn long() {{\n{body}}}\n");
    assert!(unexplained(Path::new("x.rs"), &explained).is_empty());

    // Braces in strings and comments do not end or extend it.
    let short = "fn a() {\n    let s = \"}}}\"; // }\n    let r = r#\"{\"#;\n}\nfn b() {}\n";
    assert!(unexplained(Path::new("x.rs"), short).is_empty());
    assert_eq!(
        brace_deltas(short),
        vec![(1, 0), (0, 0), (0, 0), (0, 1), (1, 1), (0, 0)]
    );

    let in_tests = format!("#[cfg(test)]\nmod tests {{\n    fn long() {{\n{body}    }}\n}}\n");
    assert!(unexplained(Path::new("x.rs"), &in_tests).is_empty());
}
