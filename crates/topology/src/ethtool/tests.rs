use super::*;

/// Walks the netlink attributes in `buf`: (type without flags, raw type, payload).
fn nlas(buf: &[u8]) -> Vec<(u16, u16, &[u8])> {
    Attrs::new(buf)
        .map(|a| {
            let a = a.expect("well-formed attribute");
            let raw = u16::from_ne_bytes([a.bytes()[2], a.bytes()[3]]);
            (a.kind(), raw, a.value())
        })
        .collect()
}

#[test]
fn get_family_bytes_exact() {
    let b = get_family("ethtool", "s".into()).to_bytes(7);
    let mut want = Vec::new();
    want.extend_from_slice(&32u32.to_ne_bytes()); // nlmsg_len
    want.extend_from_slice(&0x10u16.to_ne_bytes()); // GENL_ID_CTRL
    want.extend_from_slice(&0u16.to_ne_bytes()); // flags: the socket's
    want.extend_from_slice(&7u32.to_ne_bytes()); // seq
    want.extend_from_slice(&0u32.to_ne_bytes()); // port id
    want.extend_from_slice(&[3, 1, 0, 0]); // CTRL_CMD_GETFAMILY, version 1
    want.extend_from_slice(&12u16.to_ne_bytes()); // 4 + "ethtool\0"
    want.extend_from_slice(&2u16.to_ne_bytes()); // CTRL_ATTR_FAMILY_NAME
    want.extend_from_slice(b"ethtool\0");
    assert_eq!(b, want);
}

#[test]
fn features_get_names_the_device_and_asks_for_verbose_bitsets() {
    let b = features_get(27, "r1", "s".into()).to_bytes(1);
    assert_eq!(
        u32::from_ne_bytes(b[0..4].try_into().unwrap()) as usize,
        b.len()
    );
    assert_eq!(u16::from_ne_bytes([b[4], b[5]]), 27);
    assert_eq!(&b[16..20], &[ETHTOOL_MSG_FEATURES_GET, 1, 0, 0]);
    let attrs = nlas(&b[20..]);
    assert_eq!(attrs.len(), 1);
    let (kind, raw, header) = attrs[0];
    assert_eq!(kind, ETHTOOL_A_FEATURES_HEADER);
    assert_eq!(raw, ETHTOOL_A_FEATURES_HEADER | NLA_F_NESTED);
    // Only the name: no flags, so no compact bitsets.
    let h = nlas(header);
    assert_eq!(
        h,
        vec![(
            ETHTOOL_A_HEADER_DEV_NAME,
            ETHTOOL_A_HEADER_DEV_NAME,
            &b"r1\0"[..]
        )]
    );
}

#[test]
fn features_set_bytes_list_each_feature_without_value_under_a_mask() {
    let b = features_set(27, "b0", &["rx-gro", "tx-tcp-segmentation"], "s".into()).to_bytes(3);
    let mut want = Vec::new();
    let len = 16 + 4 + 20 + 52;
    want.extend_from_slice(&(len as u32).to_ne_bytes());
    want.extend_from_slice(&27u16.to_ne_bytes());
    want.extend_from_slice(&0u16.to_ne_bytes());
    want.extend_from_slice(&3u32.to_ne_bytes());
    want.extend_from_slice(&0u32.to_ne_bytes());
    want.extend_from_slice(&[ETHTOOL_MSG_FEATURES_SET, 1, 0, 0]);
    // header nest (20): DEV_NAME "b0" (8), FLAGS = OMIT_REPLY (8)
    want.extend_from_slice(&20u16.to_ne_bytes());
    want.extend_from_slice(&(1u16 | 0x8000).to_ne_bytes());
    want.extend_from_slice(&7u16.to_ne_bytes());
    want.extend_from_slice(&2u16.to_ne_bytes());
    want.extend_from_slice(b"b0\0\0");
    want.extend_from_slice(&8u16.to_ne_bytes());
    want.extend_from_slice(&3u16.to_ne_bytes());
    want.extend_from_slice(&2u32.to_ne_bytes());
    // WANTED nest: BITS nest: BIT{NAME "rx-gro"}, BIT{NAME "tx-tcp-segmentation"}
    want.extend_from_slice(&52u16.to_ne_bytes());
    want.extend_from_slice(&(3u16 | 0x8000).to_ne_bytes());
    want.extend_from_slice(&48u16.to_ne_bytes());
    want.extend_from_slice(&(3u16 | 0x8000).to_ne_bytes());
    want.extend_from_slice(&16u16.to_ne_bytes());
    want.extend_from_slice(&(1u16 | 0x8000).to_ne_bytes());
    want.extend_from_slice(&11u16.to_ne_bytes());
    want.extend_from_slice(&2u16.to_ne_bytes());
    want.extend_from_slice(b"rx-gro\0\0");
    want.extend_from_slice(&28u16.to_ne_bytes());
    want.extend_from_slice(&(1u16 | 0x8000).to_ne_bytes());
    want.extend_from_slice(&24u16.to_ne_bytes());
    want.extend_from_slice(&2u16.to_ne_bytes());
    want.extend_from_slice(b"tx-tcp-segmentation\0");
    assert_eq!(b.len(), want.len());
    assert_eq!(b, want);
    // No NOMASK and no VALUE anywhere: only the listed bits change, to 0.
    let wanted = nlas(&b[20..])[1].2;
    assert!(nlas(wanted)
        .iter()
        .all(|(k, _, _)| *k == ETHTOOL_A_BITSET_BITS));
}

#[test]
fn the_aggregation_features_are_the_segmentation_and_receive_ones() {
    for n in AGGREGATION_FEATURES {
        assert!(is_aggregation_feature(n), "{n}");
    }
    for n in [
        "tx-gre-segmentation",
        "tx-udp_tnl-csum-segmentation",
        "tx-gso-partial",
        "tx-sctp-segmentation",
    ] {
        assert!(is_aggregation_feature(n), "{n}");
    }
    for n in [
        "tx-scatter-gather",
        "tx-checksum-ip-generic",
        "rx-checksum",
        "rx-vlan-hw-parse",
        "tx-nocache-copy",
        "highdma",
    ] {
        assert!(!is_aggregation_feature(n), "{n}");
    }
}

// Real kernel answers captured in R (see fixtures/topology/README.md).
const FAMILY: &[u8] = include_bytes!("../../../../fixtures/topology/r_ethtool_family.bin");
const KERNEL: &[u8] = include_bytes!("../../../../fixtures/topology/r1_features_kernel.bin");
const OFF: &[u8] = include_bytes!("../../../../fixtures/topology/r1_features_off.bin");

#[test]
fn fixture_family_id_is_a_dynamic_genetlink_id() {
    let id = parse_family_id(FAMILY).unwrap();
    assert!(id > GENL_ID_CTRL, "{id}");
}

#[test]
fn fixture_features_of_a_new_veth_have_gso_and_tso_on_and_changeable() {
    let r = parse_features_reply(KERNEL).unwrap();
    assert_eq!(r.dev, "r1");
    assert_eq!(r.ifindex, 3);
    for name in [
        "tx-generic-segmentation",
        "tx-tcp-segmentation",
        "tx-tcp-ecn-segmentation",
        "tx-tcp-mangleid-segmentation",
        "tx-tcp6-segmentation",
        "tx-udp-segmentation",
        "tx-gso-list",
        // 6.18 names one more TSO variant; the name rule takes it too.
        "tx-tcp-accecn-segmentation",
    ] {
        assert!(r.active.contains(name), "{name} active");
        assert!(!r.is_fixed(name), "{name} changeable");
    }
    // A new veth has GRO off (it only aggregates on receive when asked),
    // changeable; hardware GRO and LRO are off and fixed.
    for name in ["rx-gro", "rx-gro-list", "rx-udp-gro-forwarding"] {
        assert!(!r.active.contains(name) && !r.is_fixed(name), "{name}");
    }
    for name in ["rx-gro-hw", "rx-lro"] {
        assert!(!r.active.contains(name) && r.is_fixed(name), "{name}");
    }
    // Something other than aggregation is read too, and left alone.
    assert!(r.active.contains("tx-scatter-gather"));
    let states = r.aggregation_states();
    assert!(states
        .iter()
        .any(|s| s.name == "tx-tcp-segmentation" && s.active && !s.fixed));
    assert!(!states.iter().any(|s| s.name == "tx-scatter-gather"));
}

#[test]
fn fixture_features_after_off_have_every_aggregation_feature_off() {
    let r = parse_features_reply(OFF).unwrap();
    assert_eq!(r.dev, "r1");
    let states = r.aggregation_states();
    assert!(states.len() >= AGGREGATION_FEATURES.len());
    assert!(states.iter().all(|s| !s.active), "{states:?}");
    // What `off` does not touch is still on.
    assert!(r.active.contains("tx-scatter-gather"));
    assert!(r.active.contains("tx-checksum-ip-generic") || r.active.contains("rx-checksum"));
}

#[test]
fn truncated_and_wrong_answers_are_errors_not_panics() {
    for n in 0..KERNEL.len() {
        let _ = parse_features_reply(&KERNEL[..n]);
    }
    for n in 0..FAMILY.len() {
        let _ = parse_family_id(&FAMILY[..n]);
    }
    let wire = |e: WireError| (e.what, e.reason);
    // a family answer is not a features reply, nor the reverse
    assert_eq!(
        wire(parse_features_reply(FAMILY).unwrap_err()),
        (
            "ETHTOOL_MSG_FEATURES_GET_REPLY".to_string(),
            "command 1, not 11".to_string()
        )
    );
    assert_eq!(
        wire(parse_family_id(KERNEL).unwrap_err()),
        (
            "CTRL_CMD_NEWFAMILY".to_string(),
            "command 11, not 1".to_string()
        )
    );
    assert_eq!(
        wire(parse_features_reply(&[]).unwrap_err()),
        (
            "ETHTOOL_MSG_FEATURES_GET_REPLY".to_string(),
            "no message in the answer".to_string()
        )
    );
}
