package policy

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/utils/ptr"

	"github.com/codeloc/codeloc/internal/names"
)

// allowedVolumeTypes are the volume sources a pod may use (their JSON
// names in corev1.VolumeSource): what the declaration binds (configMap,
// secret, projected, persistentVolumeClaim: consumptionRule), what the pod
// makes for itself (emptyDir, downwardAPI) and csi for the contract's
// drivers. ephemeral is allowed here because consumptionRule refuses it
// as block storage already. Everything else, a type Kubernetes adds later
// included, is refused: this is an allowlist.
var allowedVolumeTypes = []string{"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"}

// allowedVolumesText says which volumes a pod may use, for hints.
const allowedVolumesText = "pods may use configMap, secret, projected, downwardAPI, emptyDir and persistentVolumeClaim volumes, and csi of a driver in the contract's policy.csiDrivers"

// allowedProjections are the sources a projected volume may use
// (corev1.VolumeProjection). clusterTrustBundle reads cluster-scoped
// ClusterTrustBundles: public CA certificates, read by the kubelet, meant
// to be read by anyone.
var allowedProjections = []string{"clusterTrustBundle", "configMap", "downwardAPI", "secret", "serviceAccountToken"}

// volumeKinds say what a refused volume type does, by its JSON name.
var volumeKinds = map[string]string{
	"nfs": netFS, "cephfs": netFS, "glusterfs": netFS, "quobyte": netFS, "azureFile": netFS,
	"flocker": storageVolume, "portworxVolume": storageVolume, "scaleIO": storageVolume, "storageos": storageVolume,
	"iscsi": networkDisk, "rbd": networkDisk, "fc": networkDisk,
	"awsElasticBlockStore": cloudDisk, "gcePersistentDisk": cloudDisk, "azureDisk": cloudDisk,
	"cinder": cloudDisk, "vsphereVolume": cloudDisk, "photonPersistentDisk": cloudDisk,
	"flexVolume": "a driver binary on the node mounts what it serves, outside the declaration",
	"hostPath":   "it mounts a directory of the node",
	"gitRepo":    "the node clones a git repository when the pod starts, code outside the declared revision",
	"image":      "the node pulls an image or artifact as the volume, outside the rules on images",
}

const (
	netFS         = "it mounts a network file system the declaration does not name"
	storageVolume = "it mounts a volume of a storage system the declaration does not name"
	networkDisk   = "it attaches a disk of a storage network the declaration does not name"
	cloudDisk     = "it attaches a cloud disk the declaration does not name"
)

// volumeFaults checks each volume of volumes (at path) against the
// allowlist.
func (in *Context) volumeFaults(volumes []corev1.Volume, path string) []Fault {
	var faults []Fault
	for i, v := range volumes {
		at := fmt.Sprintf("%s[%d]", path, i)
		for _, t := range setFields(v.VolumeSource) {
			switch {
			case t == "csi":
				faults = append(faults, in.csiFaults(v, at)...)
			case t == "projected":
				faults = append(faults, projectionFaults(v, at)...)
			case slices.Contains(allowedVolumeTypes, t):
			case in.podSecurityRefusesVolume(corev1.Volume{Name: v.Name, VolumeSource: onlySource(v.VolumeSource, t)}):
				// pod-security says it already, at this level
			default:
				faults = append(faults, in.volumeTypeFault(v.Name, t, at+"."+t))
			}
		}
	}
	return faults
}

// volumeTypeFault refuses volume name of type t.
func (in *Context) volumeTypeFault(name, t, field string) Fault {
	what, known := volumeKinds[t]
	if !known {
		what = "a volume type outside the allowlist"
	}
	msg := fmt.Sprintf("volume %q is %s: %s", name, t, what)
	hint := in.storageHint()
	switch t {
	case "gitRepo":
		hint = "build the files into the image at the declared revision"
	case "image":
		hint = "copy the files into the container's image, or ship them in a ConfigMap of the kustomize root"
	}
	return Fault{CodeVolumeType, field, msg, hint + "; " + allowedVolumesText}
}

// storageHint points at the storage a code-location may have.
func (in *Context) storageHint() string {
	claim := names.DataClaimName(in.d.CodeLocation)
	if in.d.Resources.Disk.Set {
		return "use an emptyDir for scratch space, a declared bucket for shared files, or the declared claim " + claim
	}
	return "use an emptyDir for scratch space, a declared bucket for shared files, or declare resources.disk and mount the claim " + claim
}

// csiFaults refuses an inline CSI volume whose driver the contract does
// not list (its nodePublishSecretRef is consumptionRule's).
func (in *Context) csiFaults(v corev1.Volume, at string) []Fault {
	drivers := in.c.Policy.CSIDrivers
	if slices.Contains(drivers, v.CSI.Driver) {
		return nil
	}
	return []Fault{{CodeVolumeType, at + ".csi.driver",
		fmt.Sprintf("volume %q uses CSI driver %q, which the contract's policy.csiDrivers does not list: a driver mounts whatever it serves, outside the declaration", v.Name, v.CSI.Driver),
		listedHint("policy.csiDrivers", drivers, "inline CSI driver")}}
}

// projectionFaults refuses the sources of a projected volume outside
// allowedProjections.
func projectionFaults(v corev1.Volume, at string) []Fault {
	var faults []Fault
	for i, src := range v.Projected.Sources {
		for _, t := range setFields(src) {
			if slices.Contains(allowedProjections, t) {
				continue
			}
			faults = append(faults, Fault{CodeVolumeType, fmt.Sprintf("%s.projected.sources[%d].%s", at, i, t),
				fmt.Sprintf("volume %q projects %s, a source outside the allowlist", v.Name, t),
				"project only " + strings.Join(allowedProjections, ", ")})
		}
	}
	return faults
}

// setFields are the JSON names of the fields of struct v that are set
// (not their zero value), in the struct's order.
func setFields(v any) []string {
	rv := reflect.ValueOf(v)
	var out []string
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() {
			continue
		}
		name, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// onlySource is v with only its source t (a JSON name) set.
func onlySource(v corev1.VolumeSource, t string) corev1.VolumeSource {
	var out corev1.VolumeSource
	src, dst := reflect.ValueOf(v), reflect.ValueOf(&out).Elem()
	for i := range src.NumField() {
		if name, _, _ := strings.Cut(src.Type().Field(i).Tag.Get("json"), ","); name == t {
			dst.Field(i).Set(src.Field(i))
		}
	}
	return out
}

// podSecurityRefusesVolume reports whether the contract's Pod Security
// level refuses v (one source) (hostPath at baseline; every type outside restricted's
// list at restricted): podSecurityRule reports it, so that one volume
// gets one problem. It asks Kubernetes' own checks, with a pod that
// passes every other check.
func (in *Context) podSecurityRefusesVolume(v corev1.Volume) bool {
	lv := psaapi.LevelVersion{Level: psaapi.Level(in.c.Policy.PodSecurity), Version: psaapi.LatestVersion()}
	pod := &corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		Volumes:         []corev1.Volume{v},
	}
	for _, r := range podSecurityEvaluator().EvaluatePod(lv, &metav1.ObjectMeta{}, pod) {
		if !r.Allowed {
			return true
		}
	}
	return false
}
