//! Provider errors as agents pass them on: one parser that takes the HTTP status and the
//! provider's human message out of an error text.
//!
//! The wrappings it reads, alone or together:
//!
//! | wrapping | example |
//! |---|---|
//! | a JSON error body | `{"error":{"message":"no such model","code":404}}`, `{"message":"m"}`, `{"error":"m"}` |
//! | a body behind a prefix, or with text after it | `unexpected status 400 Bad Request: {"error":{…}}`, `{…} (request id r1)` |
//! | a body whose message is another body (gateways nest them) | `{"error":{"message":"{\"error\":{\"message\":\"m\"}}"}}` |
//! | a leading status | `400 mock: forced error` |
//! | a status stated in the prose | `last status: 429 Too Many Requests`, `HTTP 502 from upstream` |
//!
//! What counts as a provider error at all, and the wrapping of an agent's own (Claude's
//! `API Error:` prefix, the `[API Error: …]` brackets of Gemini and Qwen), is the adapter's
//! to decide and strip before calling [`parse`].

use serde_json::Value;

/// Splits a provider error into its HTTP status and the provider's human message.
///
/// The body is the first JSON object in the text, wherever it stands. The status is the
/// leading one, else the body's (`error.code`, `error.status`, `status`, `statusCode`, `code`;
/// numeric HTTP statuses only), else one the text around the body states (`status 400`,
/// `status: 429`, `HTTP 500`, `400 Bad Request`), else unknown. The message is the body's
/// (`error.message`, else `message`, else an `error` string; blank ones count as none; a
/// message that is a body itself is unwrapped), else the text without its leading status,
/// trimmed.
pub(super) fn parse(text: &str) -> (Option<u16>, String) {
    let parts = Parts::of(text);
    let status = parts
        .leading
        .or(parts.body_status)
        .or_else(|| status_in_text(parts.before))
        .or_else(|| status_in_text(parts.after));
    (status, parts.message)
}

/// Like [`parse`], but with a status only where the text states it as the error's own: a
/// leading status, or the code of a JSON body that is all the text (after that status) —
/// never one from prose, nor from a body quoted inside other text. For an agent that tells
/// provider errors from its own by whether they carry a status.
pub(super) fn parse_explicit(text: &str) -> (Option<u16>, String) {
    let parts = Parts::of(text);
    let alone = parts.before.is_empty() && parts.after.is_empty();
    let status = parts.leading.or(parts.body_status.filter(|_| alone));
    (status, parts.message)
}

/// Splits a leading HTTP status off a text: `"400 mock: forced error"` →
/// `(Some(400), "mock: forced error")`. The status is three digits from 100 to 599 followed by
/// the end, a space or a colon (`4000 tokens` has none); the colon and white space after it
/// are dropped.
pub(super) fn split_status(text: &str) -> (Option<u16>, &str) {
    let bytes = text.as_bytes();
    let delimited = bytes
        .get(3)
        .is_none_or(|next| *next == b':' || next.is_ascii_whitespace());
    if delimited && let Some(status) = three_digits(bytes).and_then(|code| status(code.into())) {
        let rest = text[3..].trim_start_matches(|c: char| c == ':' || c.is_whitespace());
        return (Some(status), rest);
    }
    (None, text)
}

/// A number as an HTTP status: 100 to 599.
pub(super) fn status(code: u64) -> Option<u16> {
    u16::try_from(code)
        .ok()
        .filter(|status| (100..600).contains(status))
}

/// The message an agent's own `error` field carries: the field itself when it is a string,
/// else its `message`; an empty one is none.
pub(super) fn error_message(error: &Value) -> Option<&str> {
    error
        .get("message")
        .unwrap_or(error)
        .as_str()
        .filter(|message| !message.is_empty())
}

/// An error text taken apart, before any status is read out of its prose.
struct Parts<'a> {
    /// The leading status.
    leading: Option<u16>,
    /// The status of the JSON body (or of the body its message is).
    body_status: Option<u16>,
    message: String,
    /// The text before the body (all of it, without a body) and after it.
    before: &'a str,
    after: &'a str,
}

impl<'a> Parts<'a> {
    fn of(text: &'a str) -> Self {
        let (leading, rest) = split_status(text.trim());
        let Some((start, end, body)) = json_body(rest) else {
            return Parts {
                leading,
                body_status: None,
                message: rest.to_owned(),
                before: rest,
                after: "",
            };
        };
        let (body_status, message) = match body_message(&body) {
            Some((status, message)) => (status, message),
            None => (body_status(&body), rest.to_owned()),
        };
        Parts {
            leading,
            body_status,
            message,
            before: &rest[..start],
            after: &rest[end..],
        }
    }
}

/// The first JSON object in `text` (from its first `{`; text may follow it), with its byte
/// range.
fn json_body(text: &str) -> Option<(usize, usize, Value)> {
    let start = text.find('{')?;
    let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    match values.next() {
        Some(Ok(body @ Value::Object(_))) => Some((start, start + values.byte_offset(), body)),
        _ => None,
    }
}

/// The status and message of a JSON error body, if it has a message. A message that is
/// itself a JSON error body is unwrapped too (its status counts when the outer body has none).
fn body_message(body: &Value) -> Option<(Option<u16>, String)> {
    let error = body.get("error");
    let message = text(error.and_then(|error| error.get("message")))
        .or_else(|| text(body.get("message")))
        .or_else(|| text(error))?;
    let status = body_status(body);
    if message.starts_with('{')
        && let Ok(nested) = serde_json::from_str::<Value>(message)
        && let Some((nested_status, nested_message)) = body_message(&nested)
    {
        return Some((status.or(nested_status), nested_message));
    }
    Some((status, message.to_owned()))
}

/// The numeric HTTP status of a JSON error body: `error.code`, `error.status`, `status`,
/// `statusCode` or `code`, the first that is one.
fn body_status(body: &Value) -> Option<u16> {
    let error = body.get("error");
    [
        error.and_then(|error| error.get("code")),
        error.and_then(|error| error.get("status")),
        body.get("status"),
        body.get("statusCode"),
        body.get("code"),
    ]
    .into_iter()
    .flatten()
    .find_map(|value| value.as_u64().and_then(status))
}

/// A string value, trimmed, unless it is blank.
fn text(value: Option<&Value>) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

/// Reason phrases that identify a number before them as an HTTP status.
const REASONS: [&str; 17] = [
    "Bad Request",
    "Unauthorized",
    "Payment Required",
    "Forbidden",
    "Not Found",
    "Method Not Allowed",
    "Request Timeout",
    "Conflict",
    "Payload Too Large",
    "Unprocessable Entity",
    "Unprocessable Content",
    "Too Many Requests",
    "Internal Server Error",
    "Not Implemented",
    "Bad Gateway",
    "Service Unavailable",
    "Gateway Timeout",
];

/// Words that identify a number after them as an HTTP status.
const STATUS_WORDS: [&str; 8] = [
    "status",
    "status code",
    "status_code",
    "statuscode",
    "http",
    "http/1.0",
    "http/1.1",
    "http/2",
];

/// An HTTP status stated in prose: `status 400`, `status: 429`, `HTTP 500`, `400 Bad Request`.
fn status_in_text(text: &str) -> Option<u16> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at + 3 <= bytes.len() {
        let bounded = (at == 0 || !bytes[at - 1].is_ascii_alphanumeric())
            && bytes
                .get(at + 3)
                .is_none_or(|next| !next.is_ascii_alphanumeric());
        let Some(code) = three_digits(&bytes[at..]).filter(|_| bounded) else {
            at += 1;
            continue;
        };
        if let Some(status) = status(code.into()) {
            let before = text[..at]
                .trim_end_matches([' ', ':', '=', '(', '['])
                .to_ascii_lowercase();
            let after = text[at + 3..].trim_start_matches([' ', ':', '-']);
            if STATUS_WORDS.iter().any(|word| before.ends_with(word))
                || REASONS.iter().any(|reason| after.starts_with(reason))
            {
                return Some(status);
            }
        }
        at += 3;
    }
    None
}

/// The number the first three bytes spell, when they are three digits.
fn three_digits(bytes: &[u8]) -> Option<u16> {
    let digits = bytes.get(..3)?;
    digits.iter().all(u8::is_ascii_digit).then(|| {
        digits
            .iter()
            .fold(0, |code, digit| code * 10 + u16::from(digit - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_unwrapped_wherever_they_stand() {
        let cases = [
            (
                r#"unexpected status 400 Bad Request: {"error":{"message":"The model `x` does not exist","type":"invalid_request_error"}}"#,
                Some(400),
                "The model `x` does not exist",
            ),
            (
                r#"{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}"#,
                Some(403),
                "denied",
            ),
            (
                r#"{"error":{"code":404,"message":"no such model"}}"#,
                Some(404),
                "no such model",
            ),
            (
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}} (request id r1)"#,
                None,
                "Overloaded",
            ),
            (
                r#"{"message":"m","type":"invalid_request_error"}"#,
                None,
                "m",
            ),
            (r#"{"error":"m","statusCode":429}"#, Some(429), "m"),
            (
                r#"{"statusCode":400,"message":"model x not found","error":"Bad Request"}"#,
                Some(400),
                "model x not found",
            ),
            (
                r#"got status: 429 Too Many Requests. {"error":{"message":"quota"}}"#,
                Some(429),
                "quota",
            ),
            (
                r#"{"error":{"message":"{\"error\": {\"message\": \"mock: forced error 400\", \"code\": \"mock_error\"}}"}}"#,
                None,
                "mock: forced error 400",
            ),
            (
                r#"{"message":"{\"error\":{\"code\":502,\"message\":\"upstream\"}}"}"#,
                Some(502),
                "upstream",
            ),
            (
                r#"{"error":{"message":"  "},"status":503}"#,
                Some(503),
                r#"{"error":{"message":"  "},"status":503}"#,
            ),
            (" plain ", None, "plain"),
            ("{not json", None, "{not json"),
            ("{broken", None, "{broken"),
            ("", None, ""),
        ];
        for (text, status, message) in cases {
            assert_eq!(parse(text), (status, message.to_owned()), "{text}");
        }
    }

    #[test]
    fn a_leading_status_is_split_off() {
        assert_eq!(split_status("400 mock: x"), (Some(400), "mock: x"));
        assert_eq!(split_status("529: Overloaded"), (Some(529), "Overloaded"));
        assert_eq!(split_status("401"), (Some(401), ""));
        assert_eq!(split_status("4000 things"), (None, "4000 things"));
        assert_eq!(split_status("999 x"), (None, "999 x"));
        assert_eq!(split_status("abc"), (None, "abc"));
        assert_eq!(split_status("40"), (None, "40"));
        assert_eq!(
            parse("400 mock: forced error 400"),
            (Some(400), "mock: forced error 400".to_owned())
        );
        // The leading status wins over the body's.
        assert_eq!(
            parse(r#"429 {"error":{"code":500,"message":"slow down"}}"#),
            (Some(429), "slow down".to_owned())
        );
        assert_eq!(parse("4000 tokens"), (None, "4000 tokens".to_owned()));
    }

    #[test]
    fn a_status_in_the_prose_counts_unless_explicit_ones_are_asked_for() {
        let cases = [
            (
                "exceeded retry limit, last status: 429 Too Many Requests",
                Some(429),
            ),
            ("HTTP 502 from upstream", Some(502)),
            ("request failed with status code 503", Some(503)),
            ("stream disconnected after 1200 ms", None),
            ("retry 3 of 500", None),
        ];
        for (text, status) in cases {
            assert_eq!(parse(text), (status, text.to_owned()), "{text}");
            assert_eq!(parse_explicit(text), (None, text.to_owned()), "{text}");
        }
        assert_eq!(status_in_text("got Status: 503 x"), Some(503));
        assert_eq!(status_in_text("no code"), None);
        assert_eq!(
            parse_explicit(r#"400 {"error":{"message":"m"}}"#),
            (Some(400), "m".to_owned())
        );
        assert_eq!(
            parse_explicit(r#"{"error":{"code":404,"message":"m"}}"#),
            (Some(404), "m".to_owned())
        );
        // A body quoted in other text says nothing of the error's own status.
        assert_eq!(
            parse_explicit(r#"server x failed: {"error":{"code":404,"message":"m"}}"#),
            (None, "m".to_owned())
        );
    }

    #[test]
    fn error_fields_and_codes() {
        let message =
            |json: &str| error_message(&serde_json::from_str(json).unwrap()).map(str::to_owned);
        assert_eq!(
            message(r#""authentication_failed""#).as_deref(),
            Some("authentication_failed")
        );
        assert_eq!(
            message(r#"{"message":"m","type":"x"}"#).as_deref(),
            Some("m")
        );
        assert_eq!(message(r#"{"type":"x"}"#), None);
        assert_eq!(message(r#""""#), None);
        assert_eq!(message(r#"{"message":5}"#), None);
        assert_eq!(message(r#"" padded\n""#).as_deref(), Some(" padded\n"));
        assert_eq!(message("7"), None);
        assert_eq!(status(404), Some(404));
        assert_eq!(status(99), None);
        assert_eq!(status(600), None);
        assert_eq!(status(u64::MAX), None);
    }
}
