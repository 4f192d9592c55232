//! One of R's configured egresses as the scenario reads it back: where
//! its record sits among the result's qdiscs, its interface and the
//! kernel's tick factors. The runner builds them; the samplers and the
//! moving rate's drivers read through them.

use netlab_qdisc_model::Psched;

/// One configured egress: where to read it back.
pub struct Egress {
    /// Index into `res.qdiscs`.
    pub slot: usize,
    /// Interface index in R.
    pub ifindex: u32,
    /// Tick factors.
    pub psched: Psched,
}
