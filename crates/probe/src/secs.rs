//! Serde helpers: a [`Duration`] written as seconds (f64), so reports read
//! `"spacing_s": 0.2` rather than `{"secs":0,"nanos":200000000}`.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serializer};

/// Serialize a `Duration` as f64 seconds.
pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Deserialize f64 seconds (non-negative, finite) into a `Duration`.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let v = f64::deserialize(d)?;
    Duration::try_from_secs_f64(v).map_err(serde::de::Error::custom)
}
