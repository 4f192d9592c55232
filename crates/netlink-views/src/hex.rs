//! Lowercase hex for raw bytes kept in reports (netlink dumps, frames).

use crate::WireError;

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Bytes → lowercase hex.
pub fn encode(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// At most `cap` leading bytes → lowercase hex.
pub fn encode_prefix(bytes: &[u8], cap: usize) -> String {
    encode(&bytes[..bytes.len().min(cap)])
}

/// Bytes → lowercase hex pairs joined by `sep` (`00:1a:2b` for a MAC).
pub fn encode_separated(bytes: &[u8], sep: char) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, &b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(sep);
        }
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// Hex (either case, whitespace ignored) → bytes.
pub fn decode(text: &str) -> Result<Vec<u8>, WireError> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if digits.len() % 2 != 0 {
        return Err(WireError::new("hex", "odd number of digits"));
    }
    let nibble = |c: u8| -> Result<u8, WireError> {
        (c as char)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| WireError::new("hex", format!("{:?} is not a hex digit", c as char)))
    };
    digits
        .chunks_exact(2)
        .map(|p| Ok((nibble(p[0])? << 4) | nibble(p[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        assert_eq!(encode(&[0, 0xab, 0x10]), "00ab10");
        assert_eq!(decode("00AB10\n").unwrap(), vec![0, 0xab, 0x10]);
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&all)).unwrap(), all);
        assert!(decode("0").is_err());
        assert!(decode("zz").unwrap_err().to_string().contains("'z'"));
        assert_eq!(decode("").unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn prefix_and_separated() {
        assert_eq!(encode_prefix(&[0x0a, 0xff, 0x00], 2), "0aff");
        assert_eq!(encode_prefix(&[], 2), "");
        assert_eq!(encode_separated(&[0, 0x1a, 0xff], ':'), "00:1a:ff");
        assert_eq!(encode_separated(&[], ':'), "");
    }
}
