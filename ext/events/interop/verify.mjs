// Verifies recorded webhook deliveries with the standardwebhooks package
// (the Standard Webhooks reference verifier, from npm). Input: a JSON file
// of {"name", "secrets": [...], "headers": {...}, "body": base64}; every
// delivery must verify under each of its secrets, and the same delivery
// with one byte of its body changed must not. Exits non-zero on any
// failure.
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";

const deliveries = JSON.parse(readFileSync(process.argv[2], "utf8"));
let passed = 0, failed = 0;
for (const d of deliveries) {
  const body = Buffer.from(d.body, "base64");
  for (const secret of d.secrets) {
    try {
      new Webhook(secret).verify(body, d.headers);
      passed++;
    } catch (e) {
      failed++;
      console.error(`${d.name}: does not verify: ${e.message}`);
    }
    const tampered = Buffer.from(body);
    tampered[tampered.length - 1] ^= 1;
    try {
      new Webhook(secret).verify(tampered, d.headers);
      failed++;
      console.error(`${d.name}: a tampered body verifies`);
    } catch {
      passed++;
    }
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
