//! A table every output renders alike: summary.md writes it as Markdown
//! ([`Table::markdown`]) and index.html as HTML (netlab-report), from one
//! builder each, so the two files never carry different numbers.

/// A table with the sentence that introduces it and the note that
/// qualifies it.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The sentence before it (what it shows).
    pub intro: String,
    /// Column heads.
    pub header: Vec<String>,
    /// Rows of cells, as many as the heads.
    pub rows: Vec<Vec<String>>,
    /// What qualifies its cells, after it (empty: nothing).
    pub note: String,
}

impl Table {
    /// As Markdown: the intro, a blank line, the table, then the note.
    pub fn markdown(&self) -> String {
        let cell = |c: &str| c.replace('|', "\\|");
        let mut s = format!("{}\n\n", self.intro);
        s.push_str(&format!(
            "| {} |\n|{}\n",
            self.header
                .iter()
                .map(|h| cell(h))
                .collect::<Vec<_>>()
                .join(" | "),
            "---|".repeat(self.header.len())
        ));
        for r in &self.rows {
            s.push_str(&format!(
                "| {} |\n",
                r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
            ));
        }
        if !self.note.is_empty() {
            s.push_str(&format!("\n{}\n", self.note));
        }
        s
    }
}
