//! serde helpers: a [`Duration`] written as seconds (f64), so reports read
//! `"spacing_s": 0.2` rather than `{"secs":0,"nanos":200000000}`. Use with
//! `#[serde(with = "netlab_os::secs")]`.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serializer};

/// Serializes a `Duration` as f64 seconds.
pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Deserializes f64 seconds (non-negative, finite) into a `Duration`.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let v = f64::deserialize(d)?;
    Duration::try_from_secs_f64(v).map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct T {
        #[serde(with = "crate::secs")]
        spacing_s: Duration,
    }

    #[test]
    fn seconds_round_trip_and_bad_values_are_refused() {
        let t = T {
            spacing_s: Duration::from_millis(200),
        };
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, r#"{"spacing_s":0.2}"#);
        assert_eq!(serde_json::from_str::<T>(&json).unwrap(), t);
        assert!(serde_json::from_str::<T>(r#"{"spacing_s":-1.0}"#).is_err());
    }
}
