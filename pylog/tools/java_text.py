"""Bytes to text exactly as Java's `new String(bytes, UTF_8)` makes it.

Kafka's tools print keys and values with that constructor (`kafka-dump-log.sh`'s
StringDecoder). For well-formed UTF-8 it gives what Python's decoder gives. For malformed
input both put U+FFFD in place of the bad bytes, but they do not agree on how many bytes one
U+FFFD replaces, so a dump of binary data would differ character by character. Java's rules,
as its decoder applies them (`java.lang.String.decodeUTF8_UTF16`, JDK 17):

- a byte 0x80-0xC1 or 0xF8-0xFF that starts a sequence: one U+FFFD for that byte;
- a two-byte lead (0xC2-0xDF) not followed by a continuation byte (0x80-0xBF): one U+FFFD
  for the lead, and the next byte is read again;
- a three-byte lead (0xE0-0xEF) with two bytes after it: if they do not continue it (or,
  after 0xE0, would make an overlong form), one U+FFFD for the lead alone when the first of
  them is at fault, for the lead and that byte when only the second is; an encoded UTF-16
  surrogate (0xED 0xA0-0xBF ..) is one U+FFFD for all three bytes;
- a four-byte lead (0xF0-0xF7) with three bytes after it: if they do not continue it, or the
  code point is not 0x10000-0x10FFFF, one U+FFFD for 1, 2 or 3 bytes: 1 when the lead is above
  0xF4 or the next byte is not a continuation (or out of range for 0xF0 and 0xF4), 2 when the
  third byte is not a continuation, 3 otherwise;
- a sequence cut short by the end of the data: one U+FFFD, and decoding stops there (a
  lead followed by a byte that cannot continue it gives U+FFFD and goes on with that byte).

Stateless: bytes in, text out.
"""

from __future__ import annotations

REPLACEMENT = "\ufffd"


def _continues(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def _bad_second_of_three(lead: int, second: int) -> bool:
    return (lead == 0xE0 and second & 0xE0 == 0x80) or not _continues(second)


def _bad_second_of_four(lead: int, second: int) -> bool:
    return ((lead == 0xF0 and not 0x90 <= second <= 0xBF) or (lead == 0xF4 and second & 0xF0 != 0x80)
            or not _continues(second))


def java_utf8(data: bytes) -> str:
    """`data` decoded as Java decodes UTF-8, malformed bytes replaced the way Java replaces them."""
    data = bytes(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out: list[str] = []
    i, end = 0, len(data)
    while i < end:
        lead = data[i]
        i += 1
        if lead < 0x80:
            out.append(chr(lead))
        elif 0xC2 <= lead <= 0xDF:
            if i == end:
                out.append(REPLACEMENT)
                break
            if _continues(data[i]):
                out.append(chr((lead & 0x1F) << 6 | data[i] & 0x3F))
                i += 1
            else:
                out.append(REPLACEMENT)
        elif 0xE0 <= lead <= 0xEF:
            if i + 1 < end:
                second, third = data[i], data[i + 1]
                if _bad_second_of_three(lead, second):
                    out.append(REPLACEMENT)
                elif not _continues(third):
                    out.append(REPLACEMENT)
                    i += 1
                else:
                    code = (lead & 0x0F) << 12 | (second & 0x3F) << 6 | third & 0x3F
                    out.append(REPLACEMENT if 0xD800 <= code <= 0xDFFF else chr(code))
                    i += 2
                continue
            out.append(REPLACEMENT)
            if i < end and _bad_second_of_three(lead, data[i]):
                continue
            break
        elif 0xF0 <= lead <= 0xF7:
            if i + 2 < end:
                second, third, fourth = data[i], data[i + 1], data[i + 2]
                code = (lead & 0x07) << 18 | (second & 0x3F) << 12 | (third & 0x3F) << 6 | fourth & 0x3F
                if _continues(second) and _continues(third) and _continues(fourth) and 0x10000 <= code <= 0x10FFFF:
                    out.append(chr(code))
                    i += 3
                else:
                    out.append(REPLACEMENT)
                    if lead > 0xF4 or _bad_second_of_four(lead, second):
                        pass
                    elif not _continues(third):
                        i += 1
                    else:
                        i += 2
                continue
            out.append(REPLACEMENT)
            if lead > 0xF4 or (i < end and _bad_second_of_four(lead, data[i])):
                continue
            i += 1
            if i < end and not _continues(data[i]):
                continue
            break
        else:
            out.append(REPLACEMENT)
    return "".join(out)
