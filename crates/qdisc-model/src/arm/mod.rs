//! The arm under test: TBF's child qdisc, typed, parsed from the words a
//! person gives `tc` and written back as tc words.
//!
//! One module per kind (netlink-packet-route's `tc/qdiscs/` is the model):
//! each owns its KIND, one word table that drives parsing, [`Arm::tc_words`]
//! and the list of words it accepts, its `TCA_OPTIONS` encoding (the same
//! attributes, order and flags as iproute2 6.1's `tc`) and its readback
//! decoding, side by side.
//!
//! Every option is an `Option`: only what the user gave is sent to the
//! kernel, everything else keeps the kernel's default.

use std::fmt;

use netlink_packet_core::DefaultNla;
use netlink_packet_route::tc::TcOption;
use serde::{Deserialize, Serialize};

use crate::units::{tc_rate32, tc_rate64, tc_size, tc_time64_ns, tc_time_us, tc_unsigned};
use crate::units::{Rate, Size};
use crate::ModelError;

/// A word without a value that sets `field` to `Some(value)` and is
/// written back when the options hold that value: the on/off pairs
/// (`ecn`/`noecn`, `pacing`/`nopacing`, ...) of every kind's table.
/// Defined before the kind modules so each of them can use it.
macro_rules! choice {
    ($name:literal, $field:ident, $value:expr) => {
        $crate::arm::word(
            $name,
            |o, _| {
                o.$field = Some($value);
                Ok(())
            },
            |o| $crate::arm::Shown::flag(o.$field == Some($value)),
        )
    };
}

/// A word that takes a value: `$parse` reads it (from the words `$w`)
/// into `o.$field`; the readback shows the field as tc prints it.
macro_rules! value {
    ($name:literal, $field:ident, |$w:ident| $parse:expr) => {
        $crate::arm::word(
            $name,
            |o, $w| {
                o.$field = Some($parse);
                Ok(())
            },
            |o| $crate::arm::Shown::value(o.$field),
        )
    };
}

/// A word that takes a time (tc's time syntax, held in microseconds).
macro_rules! time {
    ($name:literal, $field:ident) => {
        $crate::arm::word(
            $name,
            |o, w| {
                o.$field = Some($crate::arm::us(w.time_us()?));
                Ok(())
            },
            |o| $crate::arm::show_time(&o.$field),
        )
    };
}

pub mod cake;
pub mod codel;
pub mod fifo;
pub mod fq;
pub mod fq_codel;
pub mod fq_pie;
pub mod pie;

pub use cake::Cake;
pub use codel::Codel;
pub use fifo::{Bfifo, Pfifo};
pub use fq::Fq;
pub use fq_codel::FqCodel;
pub use fq_pie::FqPie;
pub use pie::Pie;

/// The kinds [`Arm::parse`] understands.
pub const KNOWN_KINDS: &str = "pfifo, bfifo, fq_codel, codel, fq, cake, pie, fq_pie";

/// The child qdisc at `parent 1:1 handle 10:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Arm {
    /// `pfifo`.
    Pfifo(Pfifo),
    /// `bfifo`.
    Bfifo(Bfifo),
    /// `fq_codel`.
    FqCodel(FqCodel),
    /// `codel`.
    Codel(Codel),
    /// `fq`.
    Fq(Fq),
    /// `cake`.
    Cake(Cake),
    /// `pie`.
    Pie(Pie),
    /// `fq_pie`.
    FqPie(FqPie),
}

impl Arm {
    /// method §2 arm: `pfifo limit 256`.
    pub fn spec_pfifo() -> Arm {
        Arm::Pfifo(Pfifo { limit: Some(256) })
    }

    /// method §2 arm: `fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn`.
    pub fn spec_fq_codel() -> Arm {
        Arm::FqCodel(FqCodel {
            limit: Some(256),
            memory_limit: Some(Size(1_048_576)),
            target: Some(std::time::Duration::from_millis(5)),
            interval: Some(std::time::Duration::from_millis(100)),
            ecn: Some(true),
            ..FqCodel::default()
        })
    }

    /// The kernel's name of this qdisc kind, e.g. `fq_codel`.
    pub fn kind(&self) -> &'static str {
        match self {
            Arm::Pfifo(_) => fifo::PFIFO_KIND,
            Arm::Bfifo(_) => fifo::BFIFO_KIND,
            Arm::FqCodel(_) => fq_codel::KIND,
            Arm::Codel(_) => codel::KIND,
            Arm::Fq(_) => fq::KIND,
            Arm::Cake(_) => cake::KIND,
            Arm::Pie(_) => pie::KIND,
            Arm::FqPie(_) => fq_pie::KIND,
        }
    }

    /// The kernel module that provides this kind, e.g. `sch_fq_codel`
    /// (`pfifo`/`bfifo` live in `sch_fifo`, which is always built in).
    pub fn module_name(&self) -> String {
        module_for_kind(self.kind())
    }

    /// Parses tc words, e.g. `fq_codel limit 256 target 5ms interval 100ms ecn`.
    pub fn parse(text: &str) -> Result<Arm, ModelError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        Arm::parse_words(&words)
    }

    /// Parses already split tc words (the first is the kind).
    pub fn parse_words(words: &[&str]) -> Result<Arm, ModelError> {
        let Some((&kind, rest)) = words.split_first() else {
            return Err(ModelError::UnknownKind {
                kind: String::new(),
                known: KNOWN_KINDS,
            });
        };
        let arm = match kind {
            fifo::PFIFO_KIND => Arm::Pfifo(parse_table(fifo::PFIFO_KIND, fifo::PFIFO_WORDS, rest)?),
            fifo::BFIFO_KIND => Arm::Bfifo(parse_table(fifo::BFIFO_KIND, fifo::BFIFO_WORDS, rest)?),
            fq_codel::KIND => Arm::FqCodel(parse_table(fq_codel::KIND, fq_codel::WORDS, rest)?),
            codel::KIND => Arm::Codel(parse_table(codel::KIND, codel::WORDS, rest)?),
            fq::KIND => Arm::Fq(parse_table(fq::KIND, fq::WORDS, rest)?),
            cake::KIND => Arm::Cake(parse_table(cake::KIND, cake::WORDS, rest)?),
            pie::KIND => Arm::Pie(parse_table(pie::KIND, pie::WORDS, rest)?),
            fq_pie::KIND => Arm::FqPie(parse_table(fq_pie::KIND, fq_pie::WORDS, rest)?),
            other => {
                return Err(ModelError::UnknownKind {
                    kind: other.to_string(),
                    known: KNOWN_KINDS,
                })
            }
        };
        arm.validate()?;
        Ok(arm)
    }

    /// The words `kind` accepts after its name (what tc accepts), comma
    /// separated; `None` for a kind this crate does not know.
    pub fn known_words(kind: &str) -> Option<String> {
        Some(match kind {
            fifo::PFIFO_KIND => known(fifo::PFIFO_WORDS),
            fifo::BFIFO_KIND => known(fifo::BFIFO_WORDS),
            fq_codel::KIND => known(fq_codel::WORDS),
            codel::KIND => known(codel::WORDS),
            fq::KIND => known(fq::WORDS),
            cake::KIND => known(cake::WORDS),
            pie::KIND => known(pie::WORDS),
            fq_pie::KIND => known(fq_pie::WORDS),
            _ => return None,
        })
    }

    /// Checks values that the kernel would reject or silently clamp: a zero
    /// limit where tc sends it (pfifo, bfifo, fq). Where tc leaves a zero
    /// out of the request (fq_codel, codel, pie, fq_pie: "0" means the
    /// kernel's default), it is accepted and left out the same way.
    pub fn validate(&self) -> Result<(), ModelError> {
        match self {
            Arm::Pfifo(o) => positive("pfifo limit", o.limit),
            Arm::Bfifo(o) => positive(
                "bfifo limit",
                o.limit.map(|s| s.0.min(u32::MAX as u64) as u32),
            ),
            Arm::Fq(o) => positive("fq limit", o.limit),
            Arm::FqCodel(_) | Arm::Codel(_) | Arm::Cake(_) | Arm::Pie(_) | Arm::FqPie(_) => Ok(()),
        }
    }

    /// The tc words after the kind, e.g. `["limit", "256"]`.
    pub fn tc_words(&self) -> Vec<String> {
        match self {
            Arm::Pfifo(o) => show_table(fifo::PFIFO_WORDS, o),
            Arm::Bfifo(o) => show_table(fifo::BFIFO_WORDS, o),
            Arm::FqCodel(o) => show_table(fq_codel::WORDS, o),
            Arm::Codel(o) => show_table(codel::WORDS, o),
            Arm::Fq(o) => show_table(fq::WORDS, o),
            Arm::Cake(o) => show_table(cake::WORDS, o),
            Arm::Pie(o) => show_table(pie::WORDS, o),
            Arm::FqPie(o) => show_table(fq_pie::WORDS, o),
        }
    }

    /// The `TCA_OPTIONS` payload the kernel expects for this arm.
    pub(crate) fn options_payload(&self) -> Result<OptionsPayload, ModelError> {
        match self {
            Arm::Pfifo(o) => o.options(),
            Arm::Bfifo(o) => o.options(),
            Arm::FqCodel(o) => o.options(),
            Arm::Codel(o) => o.options(),
            Arm::Fq(o) => o.options(),
            Arm::Cake(o) => o.options(),
            Arm::Pie(o) => o.options(),
            Arm::FqPie(o) => o.options(),
        }
    }
}

fn positive(what: &str, v: Option<u32>) -> Result<(), ModelError> {
    match v {
        Some(0) => Err(ModelError::bad(what, "0", "must be positive")),
        _ => Ok(()),
    }
}

impl fmt::Display for Arm {
    /// The tc words, e.g. `fq_codel limit 256 memory_limit 1mb target 5ms interval 100ms ecn`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())?;
        for w in self.tc_words() {
            write!(f, " {w}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Arm {
    type Err = ModelError;
    fn from_str(s: &str) -> Result<Arm, ModelError> {
        Arm::parse(s)
    }
}

/// The kernel module that provides qdisc `kind` (`sch_<kind>`; the FIFOs
/// are `sch_fifo`).
pub fn module_for_kind(kind: &str) -> String {
    match kind {
        "pfifo" | "bfifo" | "pfifo_head_drop" => "sch_fifo".to_string(),
        other => format!("sch_{other}"),
    }
}

/// Why a kind is known to be absent from the pinned guest kernel (Debian's
/// user-mode-linux 6.1 build), if it is.
pub fn absent_from_pinned_guest(kind: &str) -> Option<&'static str> {
    match kind {
        fq_pie::KIND => Some(
            "Debian's user-mode-linux 6.1 guest kernel is built without sch_fq_pie: no such module under /usr/lib/uml/modules; \
             the 6.12 guest netlab builds has it (orchestrator kernel build uml-6.12, then --kernel uml-6.12)",
        ),
        _ => None,
    }
}

/// What goes inside `TCA_OPTIONS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OptionsPayload {
    /// No `TCA_OPTIONS` at all.
    None,
    /// A bare struct (the FIFOs' `tc_fifo_qopt`).
    Raw(Vec<u8>),
    /// Nested attributes (`TCA_OPTIONS` without `NLA_F_NESTED`, as tc
    /// sends it for most kinds).
    Nested(Vec<TcOption>),
    /// Nested attributes with `NLA_F_NESTED` set on `TCA_OPTIONS` (fq_pie:
    /// the kernel parses it strictly and tc sets the flag).
    NestedFlagged(Vec<TcOption>),
}

/// How one word of a table shows a value back.
pub(crate) enum Shown {
    /// The word alone (`ecn`).
    Flag,
    /// The word and its value (`limit 256`).
    Value(String),
}

impl Shown {
    pub(crate) fn flag(on: bool) -> Option<Shown> {
        on.then_some(Shown::Flag)
    }
    pub(crate) fn value(v: Option<impl ToString>) -> Option<Shown> {
        v.map(|v| Shown::Value(v.to_string()))
    }
}

/// One word a kind accepts: how it is parsed into the options and how the
/// options show it back. Tables list words in the order `tc_words` writes
/// them, which re-parses to the same options.
pub(crate) struct Word<T> {
    /// The word, e.g. `limit`.
    pub name: &'static str,
    /// Reads this word (and its value, from the cursor) into the options.
    pub parse: fn(&mut T, &mut Words<'_>) -> Result<(), ModelError>,
    /// What to write back for this word, if anything.
    pub show: fn(&T) -> Option<Shown>,
}

/// A word whose value is read by `parse` and written back by `show`.
pub(crate) const fn word<T>(
    name: &'static str,
    parse: fn(&mut T, &mut Words<'_>) -> Result<(), ModelError>,
    show: fn(&T) -> Option<Shown>,
) -> Word<T> {
    Word { name, parse, show }
}

fn parse_table<T: Default>(
    kind: &'static str,
    table: &[Word<T>],
    words: &[&str],
) -> Result<T, ModelError> {
    let mut o = T::default();
    let mut w = Words::new(kind, words);
    while let Some(name) = w.next() {
        let Some(entry) = table.iter().find(|e| e.name == name) else {
            return Err(w.unknown(name, &known(table)));
        };
        (entry.parse)(&mut o, &mut w)?;
    }
    Ok(o)
}

fn show_table<T>(table: &[Word<T>], o: &T) -> Vec<String> {
    let mut v = Vec::new();
    for e in table {
        match (e.show)(o) {
            Some(Shown::Flag) => v.push(e.name.to_string()),
            Some(Shown::Value(x)) => {
                v.push(e.name.to_string());
                v.push(x);
            }
            None => {}
        }
    }
    v
}

fn known<T>(table: &[Word<T>]) -> String {
    table.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
}

/// Collects nested option attributes in the order given.
#[derive(Default)]
pub(crate) struct Nest {
    pub out: Vec<TcOption>,
}

impl Nest {
    pub(crate) fn raw(&mut self, kind: u16, v: Vec<u8>) {
        self.out.push(TcOption::Other(DefaultNla::new(kind, v)));
    }
    pub(crate) fn u32(&mut self, kind: u16, v: Option<u32>) {
        if let Some(v) = v {
            self.raw(kind, v.to_ne_bytes().to_vec());
        }
    }
    pub(crate) fn i32(&mut self, kind: u16, v: Option<i32>) {
        if let Some(v) = v {
            self.raw(kind, v.to_ne_bytes().to_vec());
        }
    }
    pub(crate) fn u8(&mut self, kind: u16, v: Option<u8>) {
        if let Some(v) = v {
            self.raw(kind, vec![v]);
        }
    }
    pub(crate) fn u64(&mut self, kind: u16, v: Option<u64>) {
        if let Some(v) = v {
            self.raw(kind, v.to_ne_bytes().to_vec());
        }
    }
}

/// `Some(v)` unless `v` is 0: tc leaves an option out when its value is 0
/// (`if (limit) addattr(...)`).
pub(crate) fn nonzero(v: Option<u32>) -> Option<u32> {
    v.filter(|&x| x != 0)
}

/// A cursor over the words after the kind.
pub(crate) struct Words<'a> {
    kind: String,
    current: &'a str,
    words: Vec<&'a str>,
    at: usize,
}

impl<'a> Words<'a> {
    pub(crate) fn new(kind: &str, words: &[&'a str]) -> Words<'a> {
        Words {
            kind: kind.to_string(),
            current: "",
            words: words.to_vec(),
            at: 0,
        }
    }

    pub(crate) fn next(&mut self) -> Option<&'a str> {
        let w = *self.words.get(self.at)?;
        self.at += 1;
        self.current = w;
        Some(w)
    }

    /// The word being parsed.
    pub(crate) fn current(&self) -> &'a str {
        self.current
    }

    pub(crate) fn value(&mut self, word: &str) -> Result<&'a str, ModelError> {
        let v = self.words.get(self.at).copied();
        self.at += 1;
        v.ok_or_else(|| ModelError::MissingValue {
            kind: self.kind.clone(),
            word: word.to_string(),
        })
    }

    fn what(&self, word: &str) -> String {
        format!("{} {word}", self.kind)
    }

    fn take(&mut self) -> Result<(&'a str, String), ModelError> {
        let word = self.current;
        let v = self.value(word)?;
        Ok((v, self.what(word)))
    }

    /// The next word as tc's `get_unsigned` reads it.
    pub(crate) fn unsigned(&mut self) -> Result<u32, ModelError> {
        let (v, what) = self.take()?;
        tc_unsigned(&what, v)
    }

    /// The next word as tc's `strtol(.., 10)` reads it, within `lo..=hi`.
    pub(crate) fn int_in(&mut self, lo: i32, hi: i32) -> Result<i32, ModelError> {
        let (v, what) = self.take()?;
        let n: i32 = v.parse().map_err(|_| {
            ModelError::bad(
                &what,
                v,
                format!("expected a decimal integer in {lo}..={hi}"),
            )
        })?;
        if !(lo..=hi).contains(&n) {
            return Err(ModelError::bad(
                &what,
                v,
                format!("valid range is {lo} to {hi}"),
            ));
        }
        Ok(n)
    }

    /// The next word as tc's `get_size` reads it.
    pub(crate) fn tc_size(&mut self) -> Result<u32, ModelError> {
        let (v, what) = self.take()?;
        tc_size(&what, v)
    }

    /// The next word as tc's `get_rate` reads it (bytes/s, 32 bits).
    pub(crate) fn rate32(&mut self) -> Result<u32, ModelError> {
        let (v, what) = self.take()?;
        if v.contains('%') {
            return Err(ModelError::bad(
                &what,
                v,
                "a percentage of the device speed is not supported; give a rate such as 10mbit",
            ));
        }
        tc_rate32(&what, v)
    }

    /// The next word as tc's `get_rate64` reads it (bytes/s).
    pub(crate) fn rate64(&mut self) -> Result<u64, ModelError> {
        let (v, what) = self.take()?;
        tc_rate64(&what, v)
    }

    /// The next word as tc's `get_time` reads it (microseconds).
    pub(crate) fn time_us(&mut self) -> Result<u32, ModelError> {
        let (v, what) = self.take()?;
        tc_time_us(&what, v)
    }

    /// The next word as tc's `get_time64` reads it (nanoseconds).
    pub(crate) fn time_ns(&mut self) -> Result<u64, ModelError> {
        let (v, what) = self.take()?;
        tc_time64_ns(&what, v)
    }

    /// A TBF size word (`16kb`).
    pub(crate) fn size(&mut self, word: &str) -> Result<Size, ModelError> {
        let v = self.value(word)?;
        Size::parse(v).map_err(|e| self.rename(word, e))
    }

    /// A TBF rate word (`5mbit`).
    pub(crate) fn rate(&mut self, word: &str) -> Result<Rate, ModelError> {
        let v = self.value(word)?;
        Rate::parse(v).map_err(|e| self.rename(word, e))
    }

    fn rename(&self, word: &str, e: ModelError) -> ModelError {
        match e {
            ModelError::BadValue { text, reason, .. } => ModelError::BadValue {
                what: self.what(word),
                text,
                reason,
            },
            other => other,
        }
    }

    pub(crate) fn unknown(&self, word: &str, known: &str) -> ModelError {
        ModelError::UnknownWord {
            kind: self.kind.clone(),
            word: word.to_string(),
            known: known.to_string(),
        }
    }
}

/// Times are kept as tc sends them (microseconds) but typed as durations.
pub(crate) fn us(v: u32) -> std::time::Duration {
    std::time::Duration::from_micros(u64::from(v))
}

/// The microseconds of a duration for the kernel, saturating (parsing
/// never produces more than `u32::MAX`).
pub(crate) fn to_us(d: std::time::Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

/// A time written back as tc reads it (`5ms`, `1500us`).
pub(crate) fn show_time(d: &Option<std::time::Duration>) -> Option<Shown> {
    d.map(|d| Shown::Value(crate::units::format_time(d)))
}

#[cfg(test)]
mod tests;
