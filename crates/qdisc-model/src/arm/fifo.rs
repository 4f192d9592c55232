//! `pfifo` and `bfifo` (iproute2 `tc/q_fifo.c`, kernel `sch_fifo.c`):
//! one word, `limit`, read with tc's `get_size` for both kinds, sent as a
//! bare `struct tc_fifo_qopt` in `TCA_OPTIONS` (not nested attributes).

use serde::{Deserialize, Serialize};

use super::{word, OptionsPayload, Shown, Word};
use crate::units::Size;
use crate::ModelError;
use netlab_netlink_views::Fields;

/// `pfifo`'s KIND.
pub const PFIFO_KIND: &str = "pfifo";
/// `bfifo`'s KIND.
pub const BFIFO_KIND: &str = "bfifo";

/// `pfifo`: a packet-count FIFO.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pfifo {
    /// Queue limit in packets.
    pub limit: Option<u32>,
}

/// `bfifo`: a byte-count FIFO.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bfifo {
    /// Queue limit in bytes.
    pub limit: Option<Size>,
}

pub(crate) const PFIFO_WORDS: &[Word<Pfifo>] = &[word(
    "limit",
    |o, w| {
        o.limit = Some(w.tc_size()?);
        Ok(())
    },
    |o| Shown::value(o.limit),
)];

pub(crate) const BFIFO_WORDS: &[Word<Bfifo>] = &[word(
    "limit",
    |o, w| {
        o.limit = Some(Size(u64::from(w.tc_size()?)));
        Ok(())
    },
    |o| Shown::value(o.limit),
)];

impl Pfifo {
    pub(crate) fn options(&self) -> Result<OptionsPayload, ModelError> {
        Ok(match self.limit {
            Some(l) => OptionsPayload::Raw(l.to_ne_bytes().to_vec()),
            None => OptionsPayload::None,
        })
    }
}

impl Bfifo {
    pub(crate) fn options(&self) -> Result<OptionsPayload, ModelError> {
        Ok(match self.limit {
            Some(l) => OptionsPayload::Raw(l.to_u32("bfifo limit")?.to_ne_bytes().to_vec()),
            None => OptionsPayload::None,
        })
    }
}

/// The limit of a dumped `struct tc_fifo_qopt`.
pub(crate) fn decode_limit(kind: &str, value: &[u8]) -> Result<u32, ModelError> {
    match Fields::new_checked(value, 4, "tc_fifo_qopt") {
        Ok(f) => Ok(f.u32(0)),
        Err(e) => Err(ModelError::decode(
            format!("{kind} tc_fifo_qopt"),
            e.to_string(),
        )),
    }
}
