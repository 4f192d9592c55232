//! The little Markdown summary.md is written in, as HTML, so index.html
//! carries summary.md's sections word for word (docs/report.md, "One truth
//! per figure"): headings (`#`…`####`), pipe tables (the first row the
//! head, the `|---|` row dropped), `- ` and `1. ` lists, paragraphs, and
//! inline `**bold**` and `` `code` ``. Everything else is text, escaped.
//! (`a_caveat_and_a_table` below shows both.)

/// A Markdown block of summary.md as HTML.
pub(crate) fn to_html(md: &str) -> String {
    let mut out = String::new();
    let mut para: Vec<&str> = Vec::new();
    let mut list: Option<&'static str> = None;
    let mut table: Vec<&str> = Vec::new();
    let flush_para = |out: &mut String, para: &mut Vec<&str>| {
        if !para.is_empty() {
            out.push_str(&format!("<p>{}</p>\n", inline(&para.join(" "))));
            para.clear();
        }
    };
    let close_list = |out: &mut String, list: &mut Option<&'static str>| {
        if let Some(tag) = list.take() {
            out.push_str(&format!("</{tag}>\n"));
        }
    };
    let flush_table = |out: &mut String, table: &mut Vec<&str>| {
        if !table.is_empty() {
            out.push_str(&table_html(table));
            table.clear();
        }
    };
    for line in md.lines() {
        let t = line.trim_end();
        if t.starts_with('|') {
            flush_para(&mut out, &mut para);
            close_list(&mut out, &mut list);
            table.push(t);
            continue;
        }
        flush_table(&mut out, &mut table);
        if t.trim().is_empty() {
            flush_para(&mut out, &mut para);
            close_list(&mut out, &mut list);
            continue;
        }
        let hashes = t.chars().take_while(|c| *c == '#').count();
        if (1..=4).contains(&hashes) && t[hashes..].starts_with(' ') {
            flush_para(&mut out, &mut para);
            close_list(&mut out, &mut list);
            // One level below the page's own <h2> sections.
            let level = (hashes + 1).min(5);
            out.push_str(&format!(
                "<h{level}>{}</h{level}>\n",
                inline(t[hashes..].trim())
            ));
            continue;
        }
        let item = if let Some(rest) = t.strip_prefix("- ") {
            Some(("ul", rest))
        } else {
            let digits = t.chars().take_while(char::is_ascii_digit).count();
            (digits > 0 && t[digits..].starts_with(". ")).then(|| ("ol", &t[digits + 2..]))
        };
        match item {
            Some((tag, rest)) => {
                flush_para(&mut out, &mut para);
                if list != Some(tag) {
                    close_list(&mut out, &mut list);
                    out.push_str(&format!("<{tag}>\n"));
                    list = Some(tag);
                }
                out.push_str(&format!("<li>{}</li>\n", inline(rest)));
            }
            None if list.is_some() && line.starts_with("  ") => {
                // A list item's continuation line.
                out.push_str(&format!("<br>{}\n", inline(t.trim())));
            }
            None => {
                close_list(&mut out, &mut list);
                para.push(t.trim());
            }
        }
    }
    flush_table(&mut out, &mut table);
    flush_para(&mut out, &mut para);
    close_list(&mut out, &mut list);
    out
}

/// A pipe table's rows as an HTML table: the first row the head, the
/// `|---|` row dropped.
fn table_html(rows: &[&str]) -> String {
    let mut out = String::from("<table>");
    let mut first = true;
    for row in rows {
        let cells: Vec<&str> = row
            .trim()
            .trim_start_matches('|')
            .trim_end_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if cells
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|x| x == '-' || x == ':'))
        {
            continue;
        }
        let tag = if first { "th" } else { "td" };
        out.push_str("<tr>");
        for c in cells {
            out.push_str(&format!("<{tag}>{}</{tag}>", inline(c)));
        }
        out.push_str("</tr>\n");
        first = false;
    }
    out.push_str("</table>\n");
    out
}

/// HTML-escapes text.
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            _ => o.push(c),
        }
    }
    o
}

/// Inline `**bold**` and `` `code` ``, the rest escaped.
pub(crate) fn inline(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while !rest.is_empty() {
        let bold = rest.find("**");
        let code = rest.find('`');
        let (at, marker, tag) = match (bold, code) {
            (Some(b), Some(c)) if c < b => (c, "`", "code"),
            (Some(b), _) => (b, "**", "strong"),
            (None, Some(c)) => (c, "`", "code"),
            (None, None) => break,
        };
        let after = &rest[at + marker.len()..];
        match after.find(marker) {
            Some(end) => {
                out.push_str(&esc(&rest[..at]));
                out.push_str(&format!("<{tag}>{}</{tag}>", esc(&after[..end])));
                rest = &after[end + marker.len()..];
            }
            None => break,
        }
    }
    out.push_str(&esc(rest));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caveat_and_a_table() {
        let h = to_html("**Caveat:** x < y\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert_eq!(
            h,
            "<p><strong>Caveat:</strong> x &lt; y</p>\n<table><tr><th>a</th><th>b</th></tr>\n<tr><td>1</td><td>2</td></tr>\n</table>\n"
        );
    }

    #[test]
    fn lists_headings_and_unclosed_markers() {
        let h = to_html("### The queue (§14)\n\n1. a\n2. b\n\nNotes:\n\n- x `y`\n- a ** b\n");
        assert_eq!(
            h,
            "<h4>The queue (§14)</h4>\n<ol>\n<li>a</li>\n<li>b</li>\n</ol>\n<p>Notes:</p>\n<ul>\n<li>x <code>y</code></li>\n<li>a ** b</li>\n</ul>\n"
        );
    }

    #[test]
    fn a_table_keeps_every_row_and_escapes_cells() {
        let h = to_html("| a | b<c |\n|---|---|\n| 1 | ≥ 2 |\n| 3 | 4 |");
        assert_eq!(h.matches("<tr>").count(), 3);
        assert!(h.contains("<th>b&lt;c</th>"), "{h}");
        assert!(h.contains("<td>≥ 2</td>"), "{h}");
    }
}
