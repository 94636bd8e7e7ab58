// MediaTypes: placeholder until its stage lands.
