/*
 * trig_atan_cells.h: the Taylor coefficients of atan about c = k/16, k = 0..16, for the short
 * route of a scalar atan on the CPU (trig.h, apo__trig_atan01_short_value): row k holds
 * b0 = 1 / (1 + c^2) in two parts (hi, lo), then a_2 ... a_13 of
 * atan(c + h) = atan c + b0 h + a_2 h^2 + ... + a_13 h^13, each the nearest double to the exact
 * fraction.
 *
 * Written by scripts/atan-cells.py (the recurrence is there) and laid out by clang-format; run
 * both again rather than edit.
 * Included by trig.h alone, and only where the short route is built (FMA, not CUDA's device
 * code, which takes the double-double route).
 */
#ifndef APO_KERNELS_TRIG_ATAN_CELLS_H
#define APO_KERNELS_TRIG_ATAN_CELLS_H

#define APO_TRIG_ATAN_CELL_TERMS 14

static const double apo__trig_atan_cells[17][APO_TRIG_ATAN_CELL_TERMS] = {
    {0x1.0000000000000p+0, 0x0.0p+0, 0x0.0p+0, -0x1.5555555555555p-2, 0x0.0p+0,
     0x1.999999999999ap-3, 0x0.0p+0, -0x1.2492492492492p-3, 0x0.0p+0, 0x1.c71c71c71c71cp-4,
     0x0.0p+0, -0x1.745d1745d1746p-4, 0x0.0p+0, 0x1.3b13b13b13b14p-4},
    {0x1.fe01fe01fe020p-1, -0x1.fe01fe01fe020p-57, -0x1.fc05f809f40dfp-5, -0x1.4d69303ba878bp-2,
     0x1.f61bc46d4b167p-5, 0x1.82084cab634d0p-3, -0x1.eda84feb05beap-5, -0x1.057e3669247d6p-3,
     0x1.e2c2b10d370ecp-5, 0x1.7a77ef4ff3f8fp-4, -0x1.d5879be0af0e6p-5, -0x1.19e08bda4081ap-4,
     0x1.c61908e9ac52bp-5, 0x1.a6f985d0928e1p-5},
    {0x1.f81f81f81f820p-1, -0x1.f81f81f81f820p-55, -0x1.f05e09d0dc11bp-4, -0x1.368c3aa76e1d7p-2,
     0x1.d9b16b391c2e3p-4, 0x1.4048994488c86p-3, -0x1.ba55da98401c8p-4, -0x1.652e4e5127e64p-4,
     0x1.93943442e53aep-4, 0x1.7275386286f75p-5, -0x1.66ee6cd9fe96fp-4, -0x1.1398adddc4296p-6,
     0x1.360de2772c0aap-4, -0x1.a1881db97e2a7p-9},
    {0x1.ee9c7f8458e02p-1, -0x1.163807ba71fe1p-57, -0x1.665c226d69eebp-3, -0x1.1344bb737e8f3p-2,
     0x1.42aca8b929b0bp-3, 0x1.c32d8f683981cp-4, -0x1.13e9ad22d5eccp-3, -0x1.17f3ed35c8c33p-5,
     0x1.bc2ee2a73307ep-4, -0x1.2ee042bddc834p-7, -0x1.4aef3c93c1534p-4, 0x1.15d2688d29055p-5,
     0x1.b8914aba82d75p-5, -0x1.766bc5ea28470p-5},
    {0x1.e1e1e1e1e1e1ep-1, 0x1.e1e1e1e1e1e1ep-57, -0x1.c5894d10d4986p-3, -0x1.ce6de0253d27ep-3,
     0x1.78a3a08d88b02p-3, 0x1.dd5f26a622b44p-5, -0x1.1b1faecd7c4e0p-3, 0x1.0fc3e1fc8b549p-6,
     0x1.73ba725728acfp-4, -0x1.9a753eeba051fp-5, -0x1.81f0251c71d2ap-5, 0x1.e12e8a40eddc5p-5,
     0x1.7c82f9529d7d2p-7, -0x1.a886b0901530ep-5},
    {0x1.d272ca3fc5b1ap-1, 0x1.ae01d272ca3fcp-55, -0x1.0997e8aec9d8ep-2, -0x1.6cf6666d5c0ffp-3,
     0x1.8dd1e8f2617b5p-3, 0x1.2483b33966883p-7, -0x1.f495d2b05b16bp-4, 0x1.b9096074fdeafp-5,
     0x1.d05719c4605c9p-5, -0x1.11c35280318fdp-4, -0x1.ceb9120a724bep-8, 0x1.b60f6fd14274cp-5,
     -0x1.71768dd8c3dfcp-6, -0x1.e13098c848f37p-6},
    {0x1.c0e070381c0e0p-1, 0x1.c0e070381c0e0p-55, -0x1.2726dd135c174p-2, -0x1.09f37b38cc8cfp-3,
     0x1.85eacd7da413cp-3, -0x1.04d6980fcc815p-5, -0x1.8054c1df326f9p-4, 0x1.2a47e082bda60p-4,
     0x1.446397091d5a4p-6, -0x1.f5961e072e48cp-5, 0x1.6e2448b00bbfdp-6, 0x1.f4b8bee96ffadp-6,
     -0x1.1ca71f7c23b39p-5, -0x1.9e8ccd5774f81p-10},
    {0x1.adbe87f94905ep-1, 0x1.adbe87f94905ep-61, -0x1.3b9d8eab54af9p-2, -0x1.57c09645a7f9ep-4,
     0x1.67953180938f2p-3, -0x1.f2d8bff0ea012p-5, -0x1.f388166c7250cp-5, 0x1.32c44c95ff694p-4,
     -0x1.3f3f025d7ff49p-7, -0x1.5c6d1b848e1d1p-5, 0x1.1be53ebc410dcp-5, 0x1.8dd96f500e877p-8,
     -0x1.d01a96243647bp-6, 0x1.e7fb820487539p-7},
    {0x1.999999999999ap-1, -0x1.999999999999ap-55, -0x1.47ae147ae147bp-2, -0x1.5d867c3ece2a5p-5,
     0x1.3a92a30553261p-3, -0x1.3ec460ed80a18p-4, -0x1.ec21b514d88d8p-6, 0x1.0a849f929a833p-4,
     -0x1.c2f8b88dfb80cp-6, -0x1.56a498245bf09p-6, 0x1.0ba9908c71945p-5, -0x1.4a1a76eff2a30p-7,
     -0x1.d7b0c3d79f13fp-7, 0x1.1de3d3073a26ep-6},
    {0x1.84f00c2780614p-1, -0x1.fe7b0ff3d87fap-56, -0x1.4c62cb562c625p-2, -0x1.e6495b3a4bcb7p-8,
     0x1.063c2f78c0dc4p-3, -0x1.58b78459eb443p-4, -0x1.41c831386e6b4p-8, 0x1.938d6944ff706p-5,
     -0x1.16d9966ad4037p-5, -0x1.a9b1a01fc736ap-9, 0x1.7bd993ed938c9p-6, -0x1.06093f9b3e121p-6,
     -0x1.197974cef2424p-9, 0x1.885f3624af055p-7},
    {0x1.702e05c0b8170p-1, 0x1.702e05c0b8170p-56, -0x1.4af2b78215a76p-2, 0x1.5d0b7e9e4a9d0p-6,
     0x1.a1247ca629942p-4, -0x1.519e1100385b4p-4, 0x1.a759232616ed8p-7, 0x1.09494cda1223ap-5,
     -0x1.09bb9a5a5c251p-5, 0x1.ff915f489d8bap-8, 0x1.948ec86fd3040p-7, -0x1.e1149706d612cp-7,
     0x1.33edb25deee74p-8, 0x1.49f2b2ba99e42p-8},
    {0x1.5babcc647fa91p-1, 0x1.4339b8056eaf3p-55, -0x1.449db094286d0p-2, 0x1.655caac4cf102p-5,
     0x1.3bbbd2933dd9cp-4, -0x1.34a2f9636afc9p-4, 0x1.84d71a2400f6fp-6, 0x1.1f9acfcc53cabp-6,
     -0x1.b0ff09ec31ef1p-6, 0x1.9eee3b1615b05p-7, 0x1.e70ef159fe3f0p-9, -0x1.4de1f6d3fe18cp-7,
     0x1.b1b8837f23f1ap-8, 0x1.3bf4e7551f610p-13},
    {0x1.47ae147ae147bp-1, -0x1.eb851eb851eb8p-57, -0x1.3a92a30553261p-2, 0x1.ec21b514d88d8p-5,
     0x1.c2f8b88dfb80cp-5, -0x1.0ba9908c71945p-4, 0x1.d7b0c3d79f13fp-6, 0x1.95393357dfc67p-8,
     -0x1.378223aa97829p-6, 0x1.aec90a8b90db0p-7, -0x1.a9b62ef307e0dp-10, -0x1.664465569f4b2p-8,
     0x1.740962d9dbbc4p-8, -0x1.0f5521244b208p-9},
    {0x1.34679ace01346p-1, 0x1.e6b3804d19e6bp-55, -0x1.2ddfb03913da2p-2, 0x1.2491307b46905p-4,
     0x1.29c7e4b96b773p-5, -0x1.bca781f071f44p-5, 0x1.e63cec4b7b7c4p-6, -0x1.9529a125f35b0p-10,
     -0x1.8bf43ed369b2bp-7, 0x1.703bac97185cdp-7, -0x1.0b2d44f8f2b6ep-8, -0x1.f4d84d0fe47e4p-10,
     0x1.ecead8a7e7edap-9, -0x1.3dbaad0ee8988p-9},
    {0x1.21fb78121fb78p-1, 0x1.21fb78121fb78p-57, -0x1.1f6a8499e4889p-2, 0x1.41b15e5decb17p-4,
     0x1.59bc940a374b5p-6, -0x1.63b54400d3c9ap-5, 0x1.c90e857717232p-6, -0x1.91f786bfa704ep-8,
     -0x1.abfbc643da6ddp-8, 0x1.15112a418ed31p-7, -0x1.2c6398bf559bfp-8, 0x1.bc33da0e1a7acp-13,
     0x1.02544611d3d6ap-9, -0x1.f34e04ffd506cp-10},
    {0x1.107fbbe011080p-1, -0x1.107fbbe011080p-55, -0x1.0feeb40894fcdp-2, 0x1.50e5afb9125f7p-4,
     0x1.2a7c2843ba55ap-7, -0x1.12bd24b4ae875p-5, 0x1.93fe0f3b1b1eep-6, -0x1.1156dd4c2083bp-7,
     -0x1.4f63b0c35aa9cp-9, 0x1.770d0e5d0462fp-8, -0x1.097172647f464p-8, 0x1.35f7b3aae063cp-10,
     0x1.76be45ba0fdf9p-11, -0x1.3830da7d3adddp-10},
    {0x1.0000000000000p-1, 0x0.0p+0, -0x1.0000000000000p-2, 0x1.5555555555555p-4, 0x0.0p+0,
     -0x1.999999999999ap-6, 0x1.5555555555555p-6, -0x1.2492492492492p-7, 0x0.0p+0,
     0x1.c71c71c71c71cp-9, -0x1.999999999999ap-9, 0x1.745d1745d1746p-10, 0x0.0p+0,
     -0x1.3b13b13b13b14p-11},
};

#endif /* APO_KERNELS_TRIG_ATAN_CELLS_H */
