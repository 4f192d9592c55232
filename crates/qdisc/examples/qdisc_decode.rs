//! Fixture tool: decodes a hex dump file (`<file> [ifindex]`) and prints the
//! records as JSON.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: qdisc_decode <dump.hex> [ifindex]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).expect("read dump");
    let raw = hex::decode(text.trim()).expect("hex");
    let ifindex = args.get(1).map(|s| s.parse().expect("ifindex"));
    let records =
        netlab_qdisc_model::decode_dump(&raw, ifindex, &netlab_qdisc_model::Psched::MODERN)
            .expect("decode");
    for r in &records {
        let mut r = r.clone();
        r.raw_hex = format!("<{} bytes>", r.raw_hex.len() / 2);
        println!("{}", serde_json::to_string(&r).unwrap());
    }
}
