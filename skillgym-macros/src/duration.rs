//! `timeout = "1h30m"`: the duration grammar `skillgym.yaml` uses too, from
//! [`skillgym_grammar::duration`], which documents it as a table; zero is rejected, as in YAML.

/// The timeout in milliseconds, or the message to show at the string literal.
pub(crate) fn timeout_millis(text: &str) -> Result<u64, String> {
    match skillgym_grammar::duration::parse_millis(text) {
        Ok(0) => Err("`timeout` must be greater than zero".to_owned()),
        Ok(millis) => Ok(millis),
        Err(error) => Err(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::timeout_millis;

    #[test]
    fn valid() {
        assert_eq!(timeout_millis("500ms"), Ok(500));
        assert_eq!(timeout_millis("90s"), Ok(90_000));
        assert_eq!(timeout_millis("5m"), Ok(300_000));
        assert_eq!(timeout_millis("1h30m"), Ok(5_400_000));
        assert_eq!(timeout_millis("1m30s250ms"), Ok(90_250));
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
            assert!(timeout_millis(bad).is_err(), "{bad:?} should be rejected");
        }
    }
}
