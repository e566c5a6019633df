package e2e

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/codeloc/codeloc/internal/kubetest"
)

// bindVolumes plays the storage provisioners: for each Pending claim it
// creates a PersistentVolume pre-bound to it, which the controller-manager's
// volume binder then binds; each ObjectBucketClaim not yet Bound gets what
// Rook's bucket provisioner gives (bindBucket). It polls every 500 ms until
// stop closes.
func (h *harness) bindVolumes(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(500 * time.Millisecond):
		}
		h.provision()
		h.bindBuckets()
	}
}

// bindBuckets binds every ObjectBucketClaim not yet Bound.
func (h *harness) bindBuckets() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	claims, err := h.dyn.Resource(kubetest.ObjectBucketClaims).Namespace("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	for _, c := range claims.Items {
		phase, _, _ := unstructured.NestedString(c.Object, "status", "phase")
		if phase != "Bound" && c.GetDeletionTimestamp() == nil {
			_ = h.bindBucket(ctx, &c)
		}
	}
}

// bindBucket does what Rook's provisioner does for a claim, less the
// bucket: a ConfigMap and a Secret of the claim's name, owned by it
// (BUCKET_* and AWS_* keys), then status.phase Bound.
func (h *harness) bindBucket(ctx context.Context, c *unstructured.Unstructured) error {
	owner := []metav1.OwnerReference{{APIVersion: c.GetAPIVersion(), Kind: c.GetKind(), Name: c.GetName(), UID: c.GetUID()}}
	meta := metav1.ObjectMeta{Name: c.GetName(), Namespace: c.GetNamespace(), OwnerReferences: owner}
	prefix, _, _ := unstructured.NestedString(c.Object, "spec", "generateBucketName")
	cm := &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{
		"BUCKET_HOST": "rook-ceph-rgw.rook-ceph.svc", "BUCKET_PORT": "80", "BUCKET_NAME": prefix + "-e2e", "BUCKET_REGION": "us-east-1",
	}}
	if _, err := h.kube.CoreV1().ConfigMaps(c.GetNamespace()).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	secret := &corev1.Secret{ObjectMeta: meta, StringData: map[string]string{"AWS_ACCESS_KEY_ID": "e2e", "AWS_SECRET_ACCESS_KEY": "e2e"}}
	if _, err := h.kube.CoreV1().Secrets(c.GetNamespace()).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	if err := unstructured.SetNestedField(c.Object, "Bound", "status", "phase"); err != nil {
		return err
	}
	_, err := h.dyn.Resource(kubetest.ObjectBucketClaims).Namespace(c.GetNamespace()).UpdateStatus(ctx, c, metav1.UpdateOptions{})
	return err
}

func (h *harness) provision() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	claims, err := h.kube.CoreV1().PersistentVolumeClaims("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	for _, c := range claims.Items {
		if c.Status.Phase == corev1.ClaimPending && c.Spec.VolumeName == "" && c.DeletionTimestamp == nil {
			_ = h.createVolume(ctx, c)
		}
	}
}

func (h *harness) createVolume(ctx context.Context, c corev1.PersistentVolumeClaim) error {
	class := ""
	if c.Spec.StorageClassName != nil {
		class = *c.Spec.StorageClassName
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-" + string(c.UID)},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: c.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   c.Spec.AccessModes,
			StorageClassName:              class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: c.Namespace, Name: c.Name, UID: c.UID},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/nonexistent/e2e/" + c.Name}},
		},
	}
	_, err := h.kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
