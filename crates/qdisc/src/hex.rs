//! Lowercase hex for raw netlink bytes kept in reports.

use crate::QdiscError;

/// Bytes → lowercase hex.
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Hex (either case, whitespace ignored) → bytes.
pub fn decode(text: &str) -> Result<Vec<u8>, QdiscError> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if digits.len() % 2 != 0 {
        return Err(QdiscError::decode("hex", "odd number of digits"));
    }
    let nibble = |c: u8| -> Result<u8, QdiscError> {
        (c as char)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| QdiscError::decode("hex", format!("{:?} is not a hex digit", c as char)))
    };
    digits
        .chunks(2)
        .map(|p| Ok((nibble(p[0])? << 4) | nibble(p[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        assert_eq!(super::encode(&[0, 0xab, 0x10]), "00ab10");
        assert_eq!(super::decode("00AB10\n").unwrap(), vec![0, 0xab, 0x10]);
        assert!(super::decode("0").is_err());
        assert!(super::decode("zz").is_err());
    }
}
