// Verification: placeholder until its stage lands.
