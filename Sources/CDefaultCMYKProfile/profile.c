// The bytes of ChemicalProof.icc, beside this file, put in by the compiler (C23 #embed, which
// clang takes in any C mode): the profile is kept as the file it is, nothing is generated.
#include "CDefaultCMYKProfile.h"

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const unsigned char profile[] = {
#embed "ChemicalProof.icc"
};
#pragma clang diagnostic pop

const unsigned char *pa_default_cmyk_profile(void) { return profile; }
unsigned long pa_default_cmyk_profile_size(void) { return sizeof profile; }
