import { describe, expect, it } from "vitest";
import { validateElicitationContentWith, type RequestedSchemaValidator } from "../../../templates/runtime/protocol/elicitation-forms.js";

/**
 * The format checks of form fields (`email`, `uri`, `date`, `date-time`) on strings a hostile
 * answer can send: 10 MB strings built to make a backtracking check work hard are answered (no
 * RangeError, no hang), with the verdict a correct check gives; and the checks still tell valid
 * from invalid at their edges. `npm run bench:formats` shows the time is linear in the length.
 */

const acceptAll: RequestedSchemaValidator<unknown> = (value) => ({ ok: true, value });
const MB10 = 10_000_000;

function verdict(format: string, text: string): boolean {
  const schema = { type: "object", properties: { field: { type: "string", format } } };
  return validateElicitationContentWith(acceptAll, schema, { field: text }).ok;
}

describe("10 MB adversarial strings are answered", () => {
  const cases: { format: string; name: string; text: () => string; valid: boolean }[] = [
    { format: "uri", name: "authority, then '#' and a newline (16 s at 40 kB for the old check)", text: () => `a://${"x".repeat(MB10)}#\n`, valid: false },
    { format: "uri", name: "a long valid path", text: () => `https://example.com/${"a".repeat(MB10)}`, valid: true },
    { format: "uri", name: "a long valid query and fragment", text: () => `https://example.com/?${"q=%41&".repeat(MB10 / 6)}#${"f/".repeat(1000)}`, valid: true },
    { format: "uri", name: "percent signs without their digits", text: () => `a:${"%4".repeat(MB10 / 2)}`, valid: false },
    { format: "uri", name: "a scheme that never ends", text: () => "a".repeat(MB10), valid: false },
    { format: "uri", name: "a user name that never ends", text: () => `a://${"u".repeat(MB10)}@`, valid: true },
    { format: "uri", name: "an IP literal that never closes", text: () => `a://[${"1:".repeat(MB10 / 2)}`, valid: false },
    { format: "email", name: "a dot-string, then no domain (RangeError for the old check)", text: () => `${"a.".repeat(MB10 / 2)}a@`, valid: false },
    { format: "email", name: "a long valid local part", text: () => `${"a".repeat(MB10)}@example.com`, valid: true },
    { format: "email", name: "a quoted local part of escapes that never closes", text: () => `"${"\\a".repeat(MB10 / 2)}@example.com`, valid: false },
    { format: "email", name: "a host name of many labels, the last one bad", text: () => `a@${"a.".repeat(MB10 / 2)}-`, valid: false },
    { format: "email", name: "an address literal that never closes", text: () => `a@[IPv6:${"1:".repeat(MB10 / 2)}]`, valid: false },
    { format: "date", name: "a date and trailing digits", text: () => `2024-02-29${"0".repeat(MB10)}`, valid: false },
    { format: "date-time", name: "a fraction of digits and a bad zone", text: () => `2024-02-29T12:00:00.${"1".repeat(MB10)}x`, valid: false },
    { format: "date-time", name: "a long valid fraction", text: () => `2024-02-29T12:00:00.${"1".repeat(MB10)}Z`, valid: true },
  ];
  for (const c of cases) {
    it(`${c.format}: ${c.name}`, () => {
      const text = c.text();
      expect(text.length).toBeGreaterThanOrEqual(MB10);
      expect(verdict(c.format, text)).toBe(c.valid);
    });
  }
});

describe("the checks still read the formats as before", () => {
  const table: { format: string; valid: string[]; invalid: string[] }[] = [
    {
      format: "email",
      valid: ["a@b.co", "first.last@example.com", "x!#$%&'*+/=?^_`{|}~-@a-b.c", '"a b"@example.com', '"a\\"b"@x.y', '"a@b"@x.y', "a@[192.168.0.1]", "a@[IPv6:::1]", "a@[IPv6:1:2:3:4:5:6:7:8]", `a@${"l".repeat(63)}.com`],
      invalid: ["", "@a.b", "a@", "a", ".a@b.c", "a.@b.c", "a..b@c.d", "a b@c.d", '"a@b.c', '"a\\"@b.c', '"a\\\u0001"@b.c', "a@-b.c", "a@b-.c", "a@b..c", "a@b.c.", `a@${"l".repeat(64)}.com`, "a@[300.1.1.1]", "a@[IPv6:1:2:3:4:5:6:7:8:9]", "a@[IPv6:1::2::3]", "é@b.c"],
    },
    {
      format: "uri",
      valid: ["https://example.com", "a:", "urn:isbn:0451450523", "http://u:p@h:80/p/a/t/h?q=1&r=%20#frag/?x", "http://[::1]:8080/", "http://[v1.x:y]/", "mailto:a@b.c", "file:///etc/hosts", "a+b-c.d:x", "http://h?", "http://h#", "http://h/%41"],
      invalid: ["", ":", "1a:b", "a b:c", "no-scheme", "http://h/ p", "http://h/%4", "http://h/%zz", "http://[::1/", "http://[::1]x/", "http://h:8o/", "http://h/#a#b", "http://h/\n", "http://[1:2:3:4:5:6:7:8:9]/", "http://u@h@i/", "é:x"],
    },
    {
      format: "date",
      valid: ["2024-02-29", "2023-12-31"],
      invalid: ["2023-02-29", "2024-13-01", "2024-1-01", "20240101", "2024-02-290"],
    },
    {
      format: "date-time",
      valid: ["2024-02-29T12:00:00Z", "2024-02-29t12:00:00.5+01:00", "2016-12-31T23:59:60Z", "2017-01-01T00:59:60+01:00"],
      invalid: ["2024-02-29T12:00:00", "2024-02-29T24:00:00Z", "2024-02-29T12:00:60Z", "2024-02-29T12:00:00.Z", "2024-02-29 12:00:00Z"],
    },
  ];
  for (const { format, valid, invalid } of table) {
    it(`${format}: valid and invalid examples`, () => {
      expect(valid.filter((text) => !verdict(format, text))).toEqual([]);
      expect(invalid.filter((text) => verdict(format, text))).toEqual([]);
    });
  }
});
