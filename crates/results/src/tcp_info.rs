//! How results.json writes a flow's tcp_info samples
//! (`netlab_tcpload::record::TcpSample`, the one type of a sample): each
//! one flat object with the sample's times and socket fields first, then
//! the kernel's `tcp_info` fields beside them (its `state` is the
//! socket's). The socket's inode is not kept: read back, it is 0. Used as
//! `#[serde(with = "crate::tcp_info")]` on a `Vec<TcpSample>`.

use netlab_tcpload::record::{DiagRecord, TcpSample};
use serde::de::Error as _;
use serde::ser::{Error as _, SerializeMap};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Keys of the sample itself; `tcp_info` fields with these names are not repeated.
const OWN_KEYS: [&str; 7] = [
    "start_s",
    "end_s",
    "state",
    "recv_queue",
    "send_queue",
    "congestion",
    "skmeminfo",
];

/// Writes `samples` as results.json's array of flat objects.
pub fn serialize<S: Serializer>(samples: &[TcpSample], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(samples.iter().map(Flat))
}

/// Reads results.json's array of flat objects.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<TcpSample>, D::Error> {
    Ok(Vec::<ReadFlat>::deserialize(d)?
        .into_iter()
        .map(|f| f.0)
        .collect())
}

/// One sample, written flat.
struct Flat<'a>(&'a TcpSample);

/// One sample, read flat.
struct ReadFlat(TcpSample);

impl Serialize for Flat<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (sample, r) = (self.0, &self.0.record);
        // tcp_info's fields are spliced in through its own Serialize, so a
        // field it gains appears here without a change.
        let info = match &r.info {
            Some(i) => match serde_json::to_value(i).map_err(S::Error::custom)? {
                Value::Object(m) => m,
                _ => return Err(S::Error::custom("tcp_info did not serialize as an object")),
            },
            None => Map::new(),
        };
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("start_s", &sample.start_s)?;
        m.serialize_entry("end_s", &sample.end_s)?;
        m.serialize_entry("state", &r.state)?;
        m.serialize_entry("recv_queue", &r.recv_queue)?;
        m.serialize_entry("send_queue", &r.send_queue)?;
        m.serialize_entry("congestion", &r.congestion)?;
        m.serialize_entry("skmeminfo", &r.skmeminfo)?;
        for (k, v) in &info {
            if !OWN_KEYS.contains(&k.as_str()) {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for ReadFlat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ReadFlat, D::Error> {
        let mut m = Map::<String, Value>::deserialize(d)?;
        fn take<T: serde::de::DeserializeOwned, E: serde::de::Error>(
            m: &mut Map<String, Value>,
            key: &str,
        ) -> Result<T, E> {
            let v = m.remove(key).unwrap_or(Value::Null);
            serde_json::from_value(v).map_err(|e| E::custom(format!("tcp_info sample {key}: {e}")))
        }
        let start_s = take::<_, D::Error>(&mut m, "start_s")?;
        let end_s = take::<_, D::Error>(&mut m, "end_s")?;
        let state: u8 = take::<_, D::Error>(&mut m, "state")?;
        let recv_queue = take::<_, D::Error>(&mut m, "recv_queue")?;
        let send_queue = take::<_, D::Error>(&mut m, "send_queue")?;
        let congestion = take::<_, D::Error>(&mut m, "congestion")?;
        let skmeminfo = take::<_, D::Error>(&mut m, "skmeminfo")?;
        let info = if m.contains_key("info_len") {
            m.insert("state".into(), Value::from(state));
            Some(
                serde_json::from_value(Value::Object(m))
                    .map_err(|e| D::Error::custom(format!("tcp_info sample fields: {e}")))?,
            )
        } else {
            None
        };
        Ok(ReadFlat(TcpSample {
            start_s,
            end_s,
            record: DiagRecord {
                state,
                inode: 0,
                recv_queue,
                send_queue,
                info,
                congestion,
                skmeminfo,
            },
        }))
    }
}
