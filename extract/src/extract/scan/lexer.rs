//! The scan's lexer: a file's tokens as the structural pass needs them (identifiers, string literals,
//! delimiters, punctuation and outer doc comments), knowing comments, string, char and raw literals and
//! lifetimes, whose contents it skips; it gives up (`Err`) where it cannot be sure.

use super::Pos;

/// A token of the lexer; literal and comment contents are skipped, not returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    /// An identifier or keyword, raw prefix included, as byte offsets.
    Ident(usize, usize),
    /// A string literal: byte offsets of the whole literal (prefix, quotes and hashes included).
    Str(usize, usize),
    /// Any other literal or a lifetime.
    Other,
    Open(u8),
    Close(u8),
    Punct(u8),
    /// An outer doc comment (`/// ...`, `/** ... */`): an attribute of the item after it.
    Doc,
}

pub(super) struct Lexer<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pub(super) at: usize,
    line: u32,
    line_start: usize,
    /// The line of the last token's first byte, and the byte offset where that line starts.
    pub(super) token_line: (u32, usize),
}

/// The ASCII bytes that continue an identifier (`is_ident_continue` of an ASCII character).
const ASCII_IDENT_CONTINUE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// Whether `c` starts an identifier, as rustc (and proc-macro2) decide: `_` or `XID_Start`.
fn is_ident_start(c: char) -> bool {
    c == '_' || unicode_ident::is_xid_start(c)
}

/// Whether `c` continues an identifier: `XID_Continue` (which holds `_`, digits and combining marks
/// such as U+0301, but not `²`).
fn is_ident_continue(c: char) -> bool {
    unicode_ident::is_xid_continue(c)
}

impl<'t> Lexer<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        Lexer {
            text,
            bytes: text.as_bytes(),
            at: 0,
            line: 1,
            line_start: 0,
            token_line: (1, 0),
        }
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.peek_at(self.at + ahead)
    }

    fn peek_at(&self, at: usize) -> u8 {
        self.bytes.get(at).copied().unwrap_or(0)
    }

    fn char_at(&self, at: usize) -> Option<char> {
        self.text.get(at..).and_then(|s| s.chars().next())
    }

    /// Advances to `to`, counting the newlines passed.
    fn advance_to(&mut self, to: usize) {
        let skipped = &self.bytes[self.at..to];
        for (i, &b) in skipped.iter().enumerate() {
            if b == b'\n' {
                self.line += 1;
                self.line_start = self.at + i + 1;
            }
        }
        self.at = to;
    }

    pub(super) fn pos(&self, start: usize, end: usize) -> Pos {
        Pos {
            line: self.line,
            column: u32::try_from(self.text[self.line_start..start].chars().count() + 1)
                .unwrap_or(u32::MAX),
            start,
            end,
        }
    }

    /// The end of the identifier starting at `from`.
    fn ident_end(&self, from: usize) -> usize {
        // ASCII bytes first (nearly every identifier), then characters from the first other byte on.
        let ascii = self.bytes[from..]
            .iter()
            .position(|&b| !ASCII_IDENT_CONTINUE[usize::from(b)])
            .map_or(self.bytes.len(), |i| from + i);
        if self.bytes.get(ascii).is_none_or(u8::is_ascii) {
            return ascii;
        }
        let mut end = ascii;
        for c in self.text[end..].chars() {
            if !is_ident_continue(c) {
                break;
            }
            end += c.len_utf8();
        }
        end
    }

    /// Skips a quoted literal body starting after the opening quote; `None` when unterminated.
    fn quoted_end(&self, from: usize, quote: u8) -> Option<usize> {
        let mut i = from;
        while i < self.bytes.len() {
            match self.bytes[i] {
                b'\\' => i += 2,
                b if b == quote => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    }

    /// Skips a raw string: `from` is at the first `#` or the `"`.
    fn raw_end(&self, from: usize) -> Option<usize> {
        let hashes = self.bytes[from..]
            .iter()
            .take_while(|&&b| b == b'#')
            .count();
        if self.bytes.get(from + hashes) != Some(&b'"') {
            return None;
        }
        let mut i = from + hashes + 1;
        while i < self.bytes.len() {
            if self.bytes[i] == b'"'
                && self.bytes[i + 1..]
                    .iter()
                    .take(hashes)
                    .filter(|&&b| b == b'#')
                    .count()
                    == hashes
            {
                return Some(i + 1 + hashes);
            }
            i += 1;
        }
        None
    }

    /// The end of a literal suffix (`"x"suffix`, `1u8`).
    fn suffix_end(&self, from: usize) -> usize {
        match self.char_at(from) {
            Some(c) if is_ident_start(c) => self.ident_end(from),
            _ => from,
        }
    }

    /// The next token and the position of its first byte; `Ok(None)` at the end; `Err(())` when the text
    /// is not something the scan can read with certainty.
    pub(super) fn next(&mut self) -> Result<Option<(Token, usize)>, ()> {
        loop {
            let Some(&b) = self.bytes.get(self.at) else {
                return Ok(None);
            };
            let start = self.at;
            self.token_line = (self.line, self.line_start);
            let token = match b {
                b'\n' => {
                    self.line += 1;
                    self.at += 1;
                    self.line_start = self.at;
                    continue;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    // A run at once (indentation).
                    self.at += 1;
                    while let Some(b' ' | b'\t' | b'\r' | 0x0b | 0x0c) = self.bytes.get(self.at) {
                        self.at += 1;
                    }
                    continue;
                }
                b'/' if self.peek(1) == b'/' => {
                    let end = self.bytes[start..]
                        .iter()
                        .position(|&c| c == b'\n')
                        .map_or(self.bytes.len(), |i| start + i);
                    self.at = end;
                    // `///` but not `////`: an outer doc comment.
                    if self.peek_at(start + 2) == b'/' && self.peek_at(start + 3) != b'/' {
                        Token::Doc
                    } else {
                        continue;
                    }
                }
                b'/' if self.peek(1) == b'*' => {
                    let end = self.block_comment_end(start)?;
                    self.advance_to(end);
                    // `/** ... */` but not `/***` or `/**/`: an outer doc comment.
                    let doc = self.peek_at(start + 2) == b'*'
                        && !matches!(self.peek_at(start + 3), b'*' | b'/');
                    if doc {
                        Token::Doc
                    } else {
                        continue;
                    }
                }
                b'"' => Token::Str(start, self.quoted_literal(start + 1, b'"')?),
                b'\'' => self.char_or_lifetime(start)?,
                b'0'..=b'9' => self.number(start),
                b'{' | b'(' | b'[' => {
                    self.at += 1;
                    Token::Open(b)
                }
                b'}' | b')' | b']' => {
                    self.at += 1;
                    Token::Close(b)
                }
                _ if b.is_ascii() && !b.is_ascii_alphabetic() && b != b'_' => {
                    self.at += 1;
                    Token::Punct(b)
                }
                _ => {
                    let c = self.char_at(start).ok_or(())?;
                    if c.is_whitespace() {
                        self.at += c.len_utf8();
                        continue;
                    }
                    if !is_ident_start(c) {
                        return Err(());
                    }
                    self.word(start)?
                }
            };
            return Ok(Some((token, start)));
        }
    }

    /// The end of the (possibly nested) block comment starting at `start`; `Err` when unterminated.
    fn block_comment_end(&self, start: usize) -> Result<usize, ()> {
        let mut depth = 0usize;
        let mut i = start;
        loop {
            match (self.bytes.get(i), self.bytes.get(i + 1)) {
                (Some(b'/'), Some(b'*')) => {
                    depth += 1;
                    i += 2;
                }
                (Some(b'*'), Some(b'/')) => {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        return Ok(i);
                    }
                }
                (Some(_), _) => i += 1,
                (None, _) => return Err(()),
            }
        }
    }

    /// Passes a quoted literal whose body starts at `body_from`, and its suffix; returns its end.
    fn quoted_literal(&mut self, body_from: usize, quote: u8) -> Result<usize, ()> {
        let end = self.quoted_end(body_from, quote).ok_or(())?;
        let end = self.suffix_end(end);
        self.advance_to(end);
        Ok(end)
    }

    /// A char literal (`'a'`, `'\n'`, `'\u{1F600}'`) or a lifetime or label (`'a`, `'static`).
    fn char_or_lifetime(&mut self, start: usize) -> Result<Token, ()> {
        if self.peek(1) == b'\\' {
            self.quoted_literal(start + 1, b'\'')?;
            return Ok(Token::Other);
        }
        let c = self.char_at(start + 1).ok_or(())?;
        let after = start + 1 + c.len_utf8();
        if self.bytes.get(after) == Some(&b'\'') {
            let end = self.suffix_end(after + 1);
            self.advance_to(end);
            return Ok(Token::Other);
        }
        if !is_ident_start(c) {
            return Err(());
        }
        self.at = self.ident_end(start + 1);
        Ok(Token::Other)
    }

    /// A number literal with its suffix.
    fn number(&mut self, start: usize) -> Token {
        let mut i = start;
        while i < self.bytes.len() {
            let c = self.bytes[i];
            // Digits, suffixes, and a `.` followed by a digit (`1.5`, not `1..2`).
            let fraction = c == b'.' && self.bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
            if !(c.is_ascii_alphanumeric() || c == b'_' || fraction) {
                break;
            }
            i += 1;
        }
        self.at = i;
        Token::Other
    }

    /// An identifier (raw ones included) or a literal with a prefix (`b"..."`, `b'x'`, `r#"..."#`).
    fn word(&mut self, start: usize) -> Result<Token, ()> {
        let end = self.ident_end(start);
        let word = &self.text[start..end];
        let next = self.bytes.get(end).copied().unwrap_or(0);
        match (word, next) {
            ("b" | "c", b'"') => Ok(Token::Str(start, self.quoted_literal(end + 1, b'"')?)),
            ("b", b'\'') => {
                self.quoted_literal(end + 1, b'\'')?;
                Ok(Token::Other)
            }
            ("r" | "br" | "cr", b'"' | b'#') => {
                let is_raw_ident = word == "r"
                    && next == b'#'
                    && self.char_at(end + 1).is_some_and(is_ident_start);
                if is_raw_ident {
                    let ident_end = self.ident_end(end + 1);
                    self.at = ident_end;
                    return Ok(Token::Ident(start, ident_end));
                }
                let lit_end = self.raw_end(end).ok_or(())?;
                let lit_end = self.suffix_end(lit_end);
                self.advance_to(lit_end);
                Ok(Token::Str(start, lit_end))
            }
            _ => {
                self.at = end;
                Ok(Token::Ident(start, end))
            }
        }
    }
}
