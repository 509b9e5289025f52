"""Hard pairs that users and developers of other collision libraries reported.

Each case carries the shapes, sizes and poses its source states (MuJoCo
sizes are half extents, its ``xmat`` row-major rotations; its mesh vertices
are taken in the geom frame as written), and the source: repository and
tracker entry or test file. Where a report leaves a pose out, the case says what
was assumed. A few cases are a reported case moved far from the origin or
scaled, to reach coordinates near 1e5 m and size ratios of 1e4; they name
the case they derive from. The expected answers are not stored: the test
computes them with references that share no code with the kernels
(``polytope_reference`` for boxes and hulls, dense support sampling for
curved shapes, closed forms where one exists).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

from geometry_core.shapes import Box, Capsule, Convex, Cylinder, Shape


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    shape_A: Shape
    X_WA: np.ndarray
    shape_B: Shape
    X_WB: np.ndarray


def pose(p, R=None) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = p
    if R is not None:
        X[:3, :3] = np.asarray(R, float).reshape(3, 3)
    return X


def mj_box(sx, sy, sz) -> Box:
    """A MuJoCo box from its half extents."""
    return Box(2 * sx, 2 * sy, 2 * sz)


def mj_mesh(vertices, scale=(1.0, 1.0, 1.0)) -> Convex:
    return Convex.from_points(np.asarray(vertices, float).reshape(-1, 3) * np.asarray(scale))


def euler_deg(x, y, z):
    """MuJoCo's default euler sequence (xyz, axes moving with the frame)."""
    return Rotation.from_euler("XYZ", [x, y, z], degrees=True).as_matrix()


def nearest_rotation(R) -> np.ndarray:
    U, _, Vt = np.linalg.svd(np.asarray(R, float).reshape(3, 3))
    return U @ Vt


def box_points(lo, hi):
    return np.array(list(itertools.product(*zip(lo, hi))), float)


MJ = "google-deepmind/mujoco test/engine/engine_collision_gjk_test.cc"
PENTAPRISM = [1, 0, 0, 0.309, 0.951, 0, -0.809, 0.588, 0, -0.809, -0.588, 0, 0.309, -0.951, 0,
              1, 0, 1, 0.309, 0.951, 1, -0.809, 0.588, 1, -0.809, -0.588, 1, 0.309, -0.951, 1]
CUBE_MESH = [-1, -1, -1, 1, -1, -1, 1, 1, -1, 1, 1, 1, 1, -1, 1, -1, 1, -1, -1, 1, 1, -1, -1, 1]

# fcl #493 / #495: two 0.25 m cubes, the same rotation, kissing.
R_FCL_493 = [[0.94096063217417758029, 0.29296840037289501035, 0.16959541586174811667],
             [-0.23569836841299879326, 0.92661523595848427348, -0.29296840037289506586],
             [-0.2429801799032638987, 0.23569836841299884878, 0.94096063217417758029]]
P_FCL_493 = [0.073242100093223821977, 0.2316538089896212349, 1.3089245921032497399]

R_MJ_DEPTH2 = [0.999999966039443077825410455262, -0.000000033960556969622165789148,
               -0.000260616790777324182967061850, -0.000000033960556972087627235699,
               0.999999966039443077825410455262, -0.000260616790777321797722282382,
               0.000260616790777324182967061850, 0.000260616790777321797722282382,
               0.999999932078886044628518448008]
P_MJ_DEPTH2 = [-0.000171208577507291721461757383, -0.000171208577507290908310128019,
               1.067119586248553853025100579544]

R_MJ_DEPTH3_A = [0.965925826289068201191412299522, -0.258819045102520739476403832668,
                 0.000000000000000006339100926609, 0.258819045102520739476403832668,
                 0.965925826289068201191412299522, -0.000000000000000214827792362716,
                 0.000000000000000049478422780336, 0.000000000000000209148392896446, 1.0]
P_MJ_DEPTH3_A = [-0.015346499999999199323474918799, -0.023505500000000002086553152481,
                 -4.562296442400120888294168253196]
R_MJ_DEPTH3_B = [0.866025403784438707610604524234, -0.499999999999999944488848768742,
                 0.000000000000000018716705841316, 0.499999999999999944488848768742,
                 0.866025403784438707610604524234, -0.000000000000000263161736875730,
                 0.000000000000000115371725704125, 0.000000000000000237263102359077, 1.0]
P_MJ_DEPTH3_B = [-0.015346499999999797803074130798, -0.023505499999999998617106200527,
                 -4.659230360891631228525966434972]

R_MJ_MULTI3 = [0.999999806540386004805043285160, -0.000014738590672566122784237219,
               0.000621853651764864637230267874, -0.000621853434269146370175218586,
               0.000014756878555191479777952690, 0.999999806540251667819063641218,
               -0.000014747764440060310685981504, -0.999999999782504311873765345808,
               0.000014747710457105431443303178]
P_MJ_MULTI3 = [-0.941218618591869393696924817050, 2.209729011624415928594089564285,
               1.095456702630382306296041861060]

R_MJ_MULTI4_A = [0.500063246694118501700643264485, -0.865988885078582182330819705385,
                 -0.000015036290463686326402846169, 0.865988885208801795201338791230,
                 0.500063246603650646271432833601, 0.000009541064416582982810641038,
                 -0.000000743359510433135621196039, -0.000017792396065397684211655677,
                 0.999999999841438502734547455475]
P_MJ_MULTI4_A = [-0.015346718925143524800414063236, -0.023500448793229846561336771060,
                 -4.859382717259980388746498647379]
R_MJ_MULTI4_B = [0.999999999448633714038692232862, -0.000033207420761195452995305499,
                 -0.000000044925527333868828730462, 0.000033207420790006526530903364,
                 0.999999999448428988912951353996, 0.000000641458652741046316968134,
                 0.000000044904226121706672357864, -0.000000641460144248257277838641,
                 0.999999999999794386695839421009]
P_MJ_MULTI4_B = [-0.015347749710384111718197708285, -0.023500601273213628239489025873,
                 -4.958782854594746325460619118530]

R_MJ_MULTI5_A = [0.965955045562010394810670277366, -0.258709898141739669252814337597,
                 -0.000196358811267032467391333017, 0.258709919231419560592399875532,
                 0.965955055634174608591990818240, 0.000090476785846218643442895324,
                 0.000166266546411239724218358860, -0.000138196479997660070767120932,
                 0.999999976628582865068040064216]
P_MJ_MULTI5_A = [-0.015381524498156991936914650410, -0.023527931890396581310342938309,
                 -4.559214004409498421921398403356]
R_MJ_MULTI5_B = [0.866076536677693908927722077351, -0.499911388413602053581996642606,
                 -0.000190658753729162216972170540, 0.499911409912061843741071243130,
                 0.866076540935322825021103199106, 0.000086494189368211055798235654,
                 0.000121885643632020743577087929, -0.000170223074359586521841353202,
                 0.999999978083999430111816764111]
P_MJ_MULTI5_B = [-0.015358668590921718474784363195, -0.023542070504611382203430380855,
                 -4.659108354876987156956147373421]

R_MJ_MULTI6 = [-0.412617528992808124677083014831, -0.910903939143411389700588642881,
               -0.000887930675351447824816819576, 0.910904370383107120368038067681,
               -0.412617275794986082537718630192, -0.000460143975736545586020798115,
               0.000052771423713213129642884969, -0.000998683403024198425301793947,
               0.999999499923193035932911243435]
P_MJ_MULTI6 = [0.413029898172642018217004533653, 0.190777715293135141649827346555,
               0.100006658017411736993906856696]

R_MJ_MULTI7_A = [0.482851932827058627495375731087, -0.875697459006381406787511423317,
                 0.002823341095436950488190008812, 0.875701084072774249555948244961,
                 0.482853601927766051815638093103, -0.000102269990141710693382082198,
                 -0.001273702846902712276094815635, 0.002521784120391480209927292933,
                 0.999996009134990648803409385437]
P_MJ_MULTI7_A = [-0.002020740254618143012105280221, -0.022654384848980465422263463893,
                 -4.858542902144324493463045655517]
R_MJ_MULTI7_B = [0.999985133805306514176436394337, -0.005293845271528460454113496070,
                 0.001306663930443651821383665990, 0.005293871114312041943616993223,
                 0.999985987232967277194006783247, -0.000016319793417504115210251922,
                 -0.001306559226005186893221354794, 0.000023236861241766870316309210,
                 0.999999146181155484924829579541]
P_MJ_MULTI7_B = [-0.011066235018223425159988870803, -0.023114696036485724711662115283,
                 -4.958375812037025376355359185254]

R_MJ_MULTI8_B = [1, 0, 0, 0, 1, -0.000000000000000015361939765351,
                 0, 0.000000000000000015361939765351, 1]

R_MJ_MULTI9_A = [1.0, -0.0000000000000000000000000000000000050579,
                 0.0000000000000000001927715439853908006818,
                 0.0000000000000000000000000000000000056403, 1.0,
                 -0.0000000000000000030208514688407265124010,
                 -0.0000000000000000001927715439853908006818,
                 0.0000000000000000030208514688407265124010, 1.0]
R_MJ_MULTI9_B = [1.0, 0.0000000000000000000000000000000037070001,
                 -0.0000000000000000649578747741268744461630,
                 0.0000000000000000000000000000000064174485, 1.0,
                 0.0000000000000001558617582226398399563910,
                 0.0000000000000000649578747741268744461630,
                 -0.0000000000000001558617582226398399563910, 1.0]

R_MJ_EDGE2_B = [0.9999979704374094557906005320546682924032,
                -0.0017789363449516469497385662279498319549,
                -0.0009457835609818190025430140188689165370,
                0.0017817418144636251123996695255868871755,
                0.9999939910254954655854930933855939656496,
                0.0029737701675293876438233020564894104609,
                0.0009404877299599626429629783963548561587,
                -0.0029754492741947335607277658198199787876,
                0.9999951310803708581786963804916013032198]
P_MJ_EDGE2_B = [0.0005578602979296120537716641152314878127,
                0.0098645950089783600300830102014515432529,
                1.1037596929447945903746131079969927668571]
R_MJ_EDGE2_C = [0.0006737475542006746490053537002040684456,
                -0.0095603689585630827196816028390458086506,
                0.9999540716500983084102927023195661604404,
                -0.1095658134726250898527410981841967441142,
                0.9939334085756179604231874691322445869446,
                0.0095766296438734854756802405972848646343,
                -0.9939793149670246297233688892447389662266,
                -0.1095672335264066821203243762283818796277,
                -0.0003778293989772788311065632171903416747]
P_MJ_EDGE2_C = [-0.0218119359455731035013492657981259981170,
                0.9828851949225971829093850828940048813820,
                3.0930077345364814789263618877157568931580]

R_MJ_EE_A = [0.9182779243587342321575306414160877466202,
             -0.0000000000000000000364268564068890756444,
             0.3959364262547898638544552341045346111059,
             -0.0000000000000000000591321577502441383525,
             1.0, 0.0000000000000000002291443915550544102718,
             -0.3959364262547898638544552341045346111059,
             -0.0000000000000000002338308114719865891040,
             0.9182779243587342321575306414160877466202]
P_MJ_EE_A = [-1.3241298058948087756903078116010874509811,
             0.0000000000000000007148993364299687318184,
             2.8141526153588731773425024584867060184479]
R_MJ_EE_B = [0.9182779243587342321575306414160877466202, 0.0000000000000000000728398144756416399722,
             -0.3959364262547898638544552341045346111059,
             -0.0000000000000000001674060251593158490713,
             1.0, -0.0000000000000000002042889652712837518138,
             0.3959364262547898638544552341045346111059, 0.0000000000000000002538761903338069406631,
             0.9182779243587342321575306414160877466202]
P_MJ_EE_B = [1.3241298058948089977349127366323955357075,
             -0.0000000000000000008679606505055748997840,
             2.8141526153588731773425024584867060184479]

# mujoco_warp #657: a cylinder (radius 0.1, half length 0.2) standing on a box. The
# report prints a float32 rotation (orthonormal to 1e-8 only); the case uses the
# nearest rotation, so that the shape is a cylinder to round-off.
R_MJW_657 = [0.99996972084045410156, 0.00776371126994490623, -0.00043433305108919740,
             -0.00776385562494397163, 0.99996984004974365234, -0.00033095158869400620,
             0.00043175052269361913, 0.00033431366318836808, 0.99999988079071044922]
P_MJW_657 = [0.00015228791744448245, -0.00074981129728257656, 0.29839199781417846680]

FAR = np.array([1e5, -1e5, 1e5])

DRAKE_CCD = "RobotLocomotion/drake geometry/proximity/test/mujoco_ccd_penetration_test.cc"


def rotation_between(a, b) -> np.ndarray:
    """The least rotation taking direction a onto direction b (not opposite)."""
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    v = np.cross(a, b)
    K = np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    return np.eye(3) + K + K @ K / (1.0 + a @ b)


def x_rotation(theta) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def y_rotation(theta) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def z_rotation(theta) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _cases() -> list[Case]:
    cube_on_corner = Rotation.align_vectors([[0, 0, -1]], [[1, 1, 1]])[0].as_matrix()
    big_cube_hull = Convex.from_points(box_points([-0.5] * 3, [0.5] * 3))
    small_cube_hull = Convex.from_points(box_points([-0.2] * 3, [0.2] * 3))
    drake_cube = Convex.from_points(box_points([-1] * 3, [1] * 3))
    floor_hull = Convex.from_points(np.vstack([box_points([-2, -2, -0.5], [2, 2, 0.0]),
                                              [[0.3, -1.1, -0.7], [-1.2, 0.4, -0.6]]]))
    cases = [
        # flexible-collision-library/fcl
        Case("fcl545_small_cube_on_big_cube_diagonal_hull_box", "flexible-collision-library/fcl#545"
             " (small cube's size not given: 0.4 m assumed)",
             big_cube_hull, pose([0, 0, 0]), Box(0.4, 0.4, 0.4), pose([0.4, 0.4, 0.4])),
        Case("fcl545_small_cube_on_big_cube_diagonal_hull_hull",
             "flexible-collision-library/fcl#545 (small cube 0.4 m assumed)",
             big_cube_hull, pose([0, 0, 0]), small_cube_hull, pose([0.4, 0.4, 0.4])),
        Case("fcl628_box_inside_box_sharing_faces", "flexible-collision-library/fcl#628",
             Box(1, 1, 1), pose([0.5, 0.5, 0.5]), Box(1, 0.2, 1), pose([0.5, 0.9, 0.5])),
        Case("fcl628_box_inside_box_sharing_faces_scaled_z", "flexible-collision-library/fcl#628",
             Box(1, 1, 2), pose([0.5, 0.5, 1.0]), Box(1, 0.2, 2),
             pose([0.5, 0.9, 1.0])),
        Case("fcl503_cubes_as_convex_meshes_touching_faces", "flexible-collision-library/fcl#503",
             Convex.from_points(box_points([-2, -1, 0], [0, 1, 2])), pose([0, 0, 0]),
             Convex.from_points(box_points([0, -1, 0], [2, 1, 2])), pose([0, 0, 0])),
        Case("fcl493_kissing_rotated_cubes", "flexible-collision-library/fcl#493, #495",
             Box(0.25, 0.25, 0.25), pose(P_FCL_493, R_FCL_493), Box(0.25, 0.25, 0.25),
             pose([0, 0, 1.25], R_FCL_493)),
        Case("fcl493_kissing_rotated_cubes_as_hulls", "flexible-collision-library/fcl#493"
             ", #495 (the cubes as hulls)",
             Convex.from_points(box_points([-0.125] * 3, [0.125] * 3)), pose(P_FCL_493, R_FCL_493),
             Convex.from_points(box_points([-0.125] * 3, [0.125] * 3)),
             pose([0, 0, 1.25], R_FCL_493)),
        Case("fcl375_thin_cylinder_resting_on_box", "flexible-collision-library/fcl#375 "
             "(RobotLocomotion/drake PR #10578; the cylinder's height over the box assumed: "
             "resting on it)", Box(0.49, 0.63, 0.015),
             pose([-0.25, 0, 0], [[0, -1, 0], [1, 0, 0], [0, 0, 1]]),
             Cylinder(0.08, 0.002), pose([-0.25, 0, 0.0085])),
        Case("fcl128_skewed_box_overlapping_box_by_0_1", "flexible-collision-library/fcl#128",
             Box(1, 1, 1), pose([0.5, 0.5, 0.5]),
             Convex.from_points([[1.9, 0, 0], [2.9, 0, 0], [1.9, 1, 0], [2.9, 1, 0],
                                 [0.9, 0, 1], [1.9, 0, 1], [0.9, 1, 1], [1.9, 1, 1]]),
             pose([0, 0, 0])),
        Case("fcl128_skewed_box_touching_box", "flexible-collision-library/fcl#128",
             Box(1, 1, 1), pose([0.5, 0.5, 0.5]),
             Convex.from_points([[2, 0, 0], [3, 0, 0], [2, 1, 0], [3, 1, 0],
                                 [1, 0, 1], [2, 0, 1], [1, 1, 1], [2, 1, 1]]),
             pose([0, 0, 0])),
        Case("pythonfcl68_crossed_cylinders", "BerkeleyAutomation/python-fcl#68 "
             "(FCL's Python binding)", Cylinder(1.0, 4.0), pose([0.5, 2, 1.0]),
             Cylinder(1.0, 4.0), pose([0.5, -1.1, 2], [[1, 0, 0], [0, 0, 1], [0, -1, 0]])),
        # coal-library/coal (hpp-fcl)
        Case("coal144_equal_cubes_face_overlap_1e_4", "coal-library/coal#144",
             Box(2, 2, 2), pose([0, 0, 0]), Box(2, 2, 2), pose([1.9999, 0, 0])),
        # google-deepmind/mujoco
        Case("mujoco_box_box_depth", MJ + " BoxBoxDepth", mj_box(2.5, 2.5, 2.5), pose([-1, 0, 0]),
             mj_box(1, 1, 1), pose([1.5, 0, 0])),
        Case("mujoco_box_box_depth2_tilted_on_slab", MJ + " BoxBoxDepth2", mj_box(5, 5, 0.1),
             pose([0, 0, 0]), mj_box(1, 1, 1), pose(P_MJ_DEPTH2, R_MJ_DEPTH2)),
        Case("mujoco_box_box_depth3_stacked_turned_plates", MJ + " BoxBoxDepth3",
             mj_box(0.25, 0.25, 0.05), pose(P_MJ_DEPTH3_A, R_MJ_DEPTH3_A),
             mj_box(0.25, 0.25, 0.05), pose(P_MJ_DEPTH3_B, R_MJ_DEPTH3_B)),
        Case("mujoco_box_box_touching", MJ + " BoxBoxTouching", mj_box(1, 1, 1),
             pose([0, 0, 1.859913200000001376466229885409]), mj_box(1, 1, 1),
             pose([0, 2, 1.859913200000001376466229885409])),
        Case("mujoco_box_on_floor_face_patch", MJ + " BoxBoxMultiCCD", mj_box(1, 1, 1),
             pose([0, 0, 1.9]), mj_box(10, 10, 1), pose([0, 0, 0])),
        Case("mujoco_box_on_floor_corner_patch", MJ + " BoxBoxMultiCCD2", mj_box(1, 1, 1),
             pose([9.5, 9.5, 1.9]), mj_box(10, 10, 1), pose([0, 0, 0])),
        Case("mujoco_box_on_its_side_on_slab", MJ + " BoxBoxMultiCCD3", mj_box(5, 5, 0.1),
             pose([0, 0, 0]), mj_box(1, 1, 1), pose(P_MJ_MULTI3, R_MJ_MULTI3)),
        Case("mujoco_plates_faces_turned_1e_5_rad", MJ + " BoxBoxMultiCCD4",
             mj_box(0.25, 0.25, 0.05), pose(P_MJ_MULTI4_A, R_MJ_MULTI4_A),
             mj_box(0.25, 0.25, 0.05), pose(P_MJ_MULTI4_B, R_MJ_MULTI4_B)),
        Case("mujoco_plates_faces_turned_2e_4_rad", MJ + " BoxBoxMultiCCD5",
             mj_box(0.25, 0.25, 0.05), pose(P_MJ_MULTI5_A, R_MJ_MULTI5_A),
             mj_box(0.25, 0.25, 0.05), pose(P_MJ_MULTI5_B, R_MJ_MULTI5_B)),
        Case("mujoco_small_box_on_plate", MJ + " BoxBoxMultiCCD6", mj_box(0.5, 0.5, 0.1),
             pose([0, 0, -0.1]), mj_box(0.1, 0.1, 0.1), pose(P_MJ_MULTI6, R_MJ_MULTI6)),
        Case("mujoco_plates_turned_3e_3_rad", MJ + " BoxBoxMultiCCD7",
             mj_box(0.25, 0.25, 0.05), pose(P_MJ_MULTI7_A, R_MJ_MULTI7_A),
             mj_box(0.25, 0.25, 0.05), pose(P_MJ_MULTI7_B, R_MJ_MULTI7_B)),
        Case("mujoco_plates_turned_1e_17_rad", MJ + " BoxBoxMultiCCD8",
             mj_box(0.25, 0.25, 0.05),
             pose([-0.015346500000000000765720820084, -0.023505499999999998617106200527,
                   -4.859662640000005140450412000064]),
             mj_box(0.25, 0.25, 0.05),
             pose([-0.015346500000000000765720820084, -0.023505499999999998617106200527,
                   -4.958574289672835533338002278470], R_MJ_MULTI8_B)),
        Case("mujoco_small_cubes_turned_1e_16_rad", MJ + " BoxBoxMultiCCD9",
             mj_box(0.025, 0.025, 0.025),
             pose([-0.10714, -0.19286, 0.1749951524564917204607183975895168259740],
                  R_MJ_MULTI9_A),
             mj_box(0.025, 0.025, 0.025),
             pose([-0.10714, -0.19286, 0.2156259187793853615566774806211469694972],
                  R_MJ_MULTI9_B)),
        Case("mujoco_small_box_mesh_touching_slab_mesh", MJ + " SmallBoxMesh",
             mj_mesh(CUBE_MESH, (0.1, 0.1, 0.1)), pose([0, 0, 0.1]),
             mj_mesh(CUBE_MESH, (0.5, 0.5, 0.1)), pose([0, 0, -0.099999999])),
        Case("mujoco_pentaprism_edge_on_slab", MJ + " BoxMesh",
             mj_mesh(PENTAPRISM, (0.2, 0.2, 0.1)), pose([0, 0, 0.157], euler_deg(0, -90, 0)),
             mj_box(3, 3, 0.01), pose([0, 0, -0.01])),
        Case("mujoco_pentaprism_face_on_slab", MJ + " BoxMesh2",
             mj_mesh(PENTAPRISM, (0.2, 0.2, 0.1)), pose([0, 0, -0.001]),
             mj_box(3, 3, 0.01), pose([0, 0, -0.01])),
        Case("mujoco_pentaprism_face_on_slab_mesh", MJ + " MeshMesh",
             mj_mesh(CUBE_MESH, (1, 1, 0.01)), pose([0, 0, -0.01]),
             mj_mesh(PENTAPRISM, (0.2, 0.2, 0.1)), pose([0, 0, -0.001])),
        Case("mujoco_cube_edge_on_cube_face", MJ + " BoxEdge", mj_box(1, 1, 1), pose([0, 0, 2]),
             mj_box(1, 1, 1), pose([0, 0, 4.4], euler_deg(0, 90, 40))),
        Case("mujoco_cube_edge_on_cube_face_settled", MJ + " BoxEdge2", mj_box(1, 1, 1),
             pose(P_MJ_EDGE2_B, R_MJ_EDGE2_B), mj_box(1, 1, 1),
             pose(P_MJ_EDGE2_C, R_MJ_EDGE2_C)),
        Case("mujoco_leaning_slabs_edge_edge", MJ + " BoxEdgeEdge", mj_box(0.15, 1, 3),
             pose(P_MJ_EE_A, R_MJ_EE_A), mj_box(0.15, 1, 3), pose(P_MJ_EE_B, R_MJ_EE_B)),
        Case("mujoco_cube_mesh_edge_on_cube_mesh_face", MJ + " MeshEdge",
             mj_mesh(CUBE_MESH), pose([0, 0, 2]), mj_mesh(CUBE_MESH),
             pose([0, 0, 4.4], euler_deg(0, 90, 40))),
        Case("mujoco_long_box_mesh_on_box", MJ + " LongBox", mj_box(1, 1, 0.3),
             pose([0, 0, -0.3]), mj_mesh(CUBE_MESH, (0.6, 0.03, 0.03)),
             pose([0, 0, 0.02], euler_deg(0, 0, 40))),
        Case("mujoco_boxes_apart", MJ + " BoxBox", mj_box(1, 1, 1), pose([-1.5, 0.5, 0]),
             mj_box(1, 1, 1), pose([1.5, 0, 0])),
        Case("mujoco_capsules_apart", MJ + " CapsuleCapsule", Capsule(0.15, 0.6),
             pose([-0.3, 0.2, -0.4]), Capsule(0.10, 0.2), pose([0.3, 0.2, 0.4])),
        Case("mujoco_warp657_cylinder_standing_on_box", "google-deepmind/mujoco_warp#657",
             mj_box(1, 1, 0.1), pose([0, 0, 0]), Cylinder(0.1, 0.4),
             pose(P_MJW_657, nearest_rotation(R_MJW_657))),
        # RobotLocomotion/drake: a cube resting on its corner 1 mm into a hull's face.
        Case("drake7656_cube_on_corner_into_hull_face", "RobotLocomotion/drake#7656 "
             "(cube on its corner; the hull's shape is ours)", Box(0.1, 0.1, 0.1),
             pose([0.1, 0.2, 0.05 * np.sqrt(3) - 0.001], cube_on_corner), floor_hull,
             pose([0, 0, 0])),
        # RobotLocomotion/drake's MuJoCo-CCD penetration test: hulls of the cube
        # [-1, 1]^3 (box [-0.7, 0.7] x [-1.1, 1.1] x [-0.9, 0.9] in Deterministic),
        # A at the origin, B posed as each test states, 1 mm deep.
        Case("drake_ccd_cube_on_corner_into_cube_face", DRAKE_CCD + " VertexFaceContact",
             drake_cube, pose([0, 0, 0]), drake_cube,
             pose([0, 0, 1 + np.sqrt(3) - 1e-3], rotation_between([1, 1, 1], [0, 0, -1]))),
        Case("drake_ccd_cube_on_corner_into_cube_face_as_box", DRAKE_CCD + " VertexFaceContact "
             "(the resting cube as a Box)", drake_cube, pose([0, 0, 0]), Box(2, 2, 2),
             pose([0, 0, 1 + np.sqrt(3) - 1e-3], rotation_between([1, 1, 1], [0, 0, -1]))),
        Case("drake_ccd_cube_edge_into_cube_face", DRAKE_CCD + " EdgeFaceContact", drake_cube,
             pose([0, 0, 0]), drake_cube,
             pose([0, 0, 1 + np.sqrt(2) - 1e-3], x_rotation(np.pi / 4))),
        Case("drake_ccd_cubes_face_face_offset", DRAKE_CCD + " FaceFaceContact", drake_cube,
             pose([0, 0, 0]), drake_cube, pose([0.4, 0.3, 2 - 1e-3])),
        Case("drake_ccd_cubes_face_face_turned_45_deg", DRAKE_CCD
             + " RotatedFaceFaceContactPrunesToFour", drake_cube, pose([0, 0, 0]), drake_cube,
             pose([0, 0, 2 - 1e-3], z_rotation(np.pi / 4))),
        Case("drake_ccd_cubes_face_face_tilted_2e_4_rad", DRAKE_CCD
             + " TiltedContactHasGradedDepths", drake_cube, pose([0, 0, 0]), drake_cube,
             pose([0, 0, 2 - 1e-3], x_rotation(2e-4))),
        Case("drake_ccd_boxes_turned_overlapping", DRAKE_CCD + " Deterministic",
             Convex.from_points(box_points([-0.7, -1.1, -0.9], [0.7, 1.1, 0.9])),
             pose([0.05, -0.02, 0], y_rotation(0.1)),
             Convex.from_points(box_points([-0.7, -1.1, -0.9], [0.7, 1.1, 0.9])),
             pose([0.3, 0.2, 1.7], x_rotation(-0.07))),
        # Derived: the cases above moved to coordinates near 1e5 m, or scaled to a
        # size ratio of 1e4.
        Case("far_mujoco_box_on_floor_face_patch", MJ + " BoxBoxMultiCCD, moved by 1e5 m",
             mj_box(1, 1, 1), pose(FAR + [0, 0, 1.9]), mj_box(10, 10, 1), pose(FAR)),
        Case("far_fcl493_kissing_rotated_cubes", "flexible-collision-library/fcl#493, "
             "moved by 1e5 m", Box(0.25, 0.25, 0.25), pose(FAR + P_FCL_493, R_FCL_493),
             Box(0.25, 0.25, 0.25), pose(FAR + [0, 0, 1.25], R_FCL_493)),
        Case("far_drake7656_cube_on_corner_into_hull_face", "RobotLocomotion/drake#7656, "
             "moved by 1e5 m", Box(0.1, 0.1, 0.1),
             pose(FAR + [0.1, 0.2, 0.05 * np.sqrt(3) - 0.001], cube_on_corner), floor_hull,
             pose(FAR)),
        Case("ratio_1e4_small_cube_on_floor", MJ + " BoxBoxMultiCCD2 with the cube 1e4 times "
             "smaller than the floor, 1 um deep", mj_box(0.001, 0.001, 0.001),
             pose([9.5, 9.5, 1.000999]), mj_box(10, 10, 1), pose([0, 0, 0])),
        Case("ratio_1e4_small_cube_on_corner_into_floor_hull", "RobotLocomotion/drake#7656"
             " with a 0.4 mm cube on a 4 m hull", Box(4e-4, 4e-4, 4e-4),
             pose([0.3, -0.7, 2e-4 * np.sqrt(3) - 1e-6], cube_on_corner), floor_hull,
             pose([0, 0, 0])),
    ]
    return cases


CASES = _cases()
