/** Realistic formats (test values, not live credentials). */
export const SECRETS = {
  openai: "sk-proj-4fJ9dXk2Lm8QzR7tVw3Yb6Nc1Hp5Ga0Se9Ui2Ko7Wq4Er8Ty1Az3Xc6Vb9Nm2Lk5Jh8Gf",
  anthropic:
    "sk-ant-api03-Xy7Kp2Lm9Qr4St6Uv8Wx0Yz1Ab3Cd5Ef7Gh9Ij2Kl4Mn6Op8Qr0St2Uv4Wx6Yz8Ab0Cd2Ef4Gh6Ij8Kl0Mn2Op4Qr6St8Uv0Wx2Yz4AbCdAA",
  github: "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sAB",
  githubPat: "github_pat_11ABCDEFG0aBcDeFgHiJkLmN_OpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz012345",
  aws: "AKIAIOSFODNN7EXAMPLE",
  awsSecret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  slack: "xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
  google: "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
  jwt: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
  privateKey:
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDx1p2kq7v3Yw8n0h6Jp4tXq5yC9rLmN3kQ2wS8aF7dTgAAAJgx\n-----END OPENSSH PRIVATE KEY-----",
  rsaKey:
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n-----END RSA PRIVATE KEY-----",
  bearer: "dGhpc2lzYXZlcnlsb25ndG9rZW52YWx1ZQ.abc123XYZ",
};
