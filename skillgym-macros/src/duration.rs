//! `timeout = "1h30m"` strings.

/// What a valid duration looks like, for error messages.
pub(crate) const EXPECTED: &str =
    "expected a duration such as \"500ms\", \"90s\", \"5m\" or \"1h30m\" (units: ms, s, m, h)";

/// Parses one or more `<integer><unit>` parts (units `ms`, `s`, `m`, `h`) into milliseconds.
pub(crate) fn parse_millis(text: &str) -> Result<u64, String> {
    if text.is_empty() {
        return Err(format!("empty timeout: {EXPECTED}"));
    }
    let mut rest = text;
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(format!("invalid timeout \"{text}\": {EXPECTED}"));
        }
        let (number, after) = rest.split_at(digits);
        let letters = after.bytes().take_while(u8::is_ascii_alphabetic).count();
        let (unit, after) = after.split_at(letters);
        let factor: u64 = match unit {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            "" => {
                return Err(format!(
                    "invalid timeout \"{text}\": `{number}` has no unit; {EXPECTED}"
                ));
            }
            other => {
                return Err(format!(
                    "invalid timeout \"{text}\": unknown unit `{other}`; {EXPECTED}"
                ));
            }
        };
        let part = number
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(factor))
            .and_then(|ms| total.checked_add(ms));
        total = part.ok_or_else(|| format!("timeout \"{text}\" is too large"))?;
        rest = after;
    }
    if total == 0 {
        return Err(format!("timeout \"{text}\" must be greater than zero"));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::parse_millis;

    #[test]
    fn valid() {
        assert_eq!(parse_millis("500ms"), Ok(500));
        assert_eq!(parse_millis("90s"), Ok(90_000));
        assert_eq!(parse_millis("5m"), Ok(300_000));
        assert_eq!(parse_millis("1h30m"), Ok(5_400_000));
        assert_eq!(parse_millis("1m30s250ms"), Ok(90_250));
    }

    #[test]
    fn invalid() {
        for bad in [
            "",
            "90",
            "s",
            "1.5s",
            "10 s",
            "3d",
            "0s",
            "0h0m",
            "-1s",
            "99999999999999999h",
        ] {
            assert!(parse_millis(bad).is_err(), "{bad:?} should be rejected");
        }
    }
}
