export const VLI_MASK_HEADER = 0x3f; // 00111111
export const VLI_MASK_VALUE = 0xc0; // 11000000
export const VLI_MASK_LSB = 0xff; // 11111111
export const VLI_LEN_1 = 0x00; // 00000000
export const VLI_LEN_2 = 0x40; // 01000000
export const VLI_LEN_4 = 0x80; // 10000000
export const VLI_LEN_8 = 0xc0; // 11000000
