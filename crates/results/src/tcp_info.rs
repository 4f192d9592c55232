//! One tcp_info sample as results.json has always written it: one flat
//! object with the sample's times and socket fields first, then the
//! kernel's `tcp_info` fields beside them (its `state` is the socket's).

use netlab_tcpload::record::{SkMemInfo, TcpSample};
use netlab_tcpload::TcpInfo;
use serde::de::Error as _;
use serde::ser::{Error as _, SerializeMap};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// One sender tcp_info sample (kernel data), written flat.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpInfoSample {
    /// Query start, s from t0.
    pub start_s: f64,
    /// Query end, s from t0.
    pub end_s: f64,
    /// Socket state (1 = ESTABLISHED); also `tcp_info`'s own state.
    pub state: u8,
    /// Bytes in the receive queue.
    pub recv_queue: u32,
    /// Bytes in the send queue.
    pub send_queue: u32,
    /// Congestion control in use.
    pub congestion: Option<String>,
    /// Socket memory counters.
    pub skmeminfo: Option<SkMemInfo>,
    /// The kernel's `struct tcp_info`, when the dump carried one.
    pub info: Option<TcpInfo>,
}

impl From<&TcpSample> for TcpInfoSample {
    fn from(s: &TcpSample) -> TcpInfoSample {
        TcpInfoSample {
            start_s: s.start_s,
            end_s: s.end_s,
            state: s.record.state,
            recv_queue: s.record.recv_queue,
            send_queue: s.record.send_queue,
            congestion: s.record.congestion.clone(),
            skmeminfo: s.record.skmem,
            info: s.record.info.clone(),
        }
    }
}

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

impl Serialize for TcpInfoSample {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // tcp_info's fields are spliced in through its own Serialize, so a
        // field it gains appears here without a change.
        let info = match &self.info {
            Some(i) => match serde_json::to_value(i).map_err(S::Error::custom)? {
                Value::Object(m) => m,
                _ => return Err(S::Error::custom("tcp_info did not serialize as an object")),
            },
            None => Map::new(),
        };
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("start_s", &self.start_s)?;
        m.serialize_entry("end_s", &self.end_s)?;
        m.serialize_entry("state", &self.state)?;
        m.serialize_entry("recv_queue", &self.recv_queue)?;
        m.serialize_entry("send_queue", &self.send_queue)?;
        m.serialize_entry("congestion", &self.congestion)?;
        m.serialize_entry("skmeminfo", &self.skmeminfo)?;
        for (k, v) in &info {
            if !OWN_KEYS.contains(&k.as_str()) {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for TcpInfoSample {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TcpInfoSample, D::Error> {
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
        Ok(TcpInfoSample {
            start_s,
            end_s,
            state,
            recv_queue,
            send_queue,
            congestion,
            skmeminfo,
            info,
        })
    }
}
